//! The pattern detectors: one regex per rule, compiled once per process. Each is a finite
//! automaton (the `regex` crate never backtracks), so a pass is linear in the input, and each
//! rule's literal prefix (`sk-`, `AIza`, `-----BEGIN`, `://`) lets the crate skip to candidate
//! positions with a vectorized substring search.
//!
//! Measured, not assumed: compiling all rules into one `RegexSet` made a 10 MB session text
//! take 30 s (debug build) — the combined lazy DFA overflows its cache on the Unicode-aware
//! and case-insensitive parts and falls back to the PikeVM — while running the rules one by
//! one takes 0.6 s in the same build. So the rules run one by one.
//!
//! No maintained crate fits here: the gitleaks-derived ones on crates.io need a newer compiler
//! than this workspace's (1.85 MSRV, 1.95 toolchain) or carry a scanner application with them,
//! so each pattern is written from the provider's documented key format, cited beside it, and
//! tested in `tests/`.
//!
//! Every pattern captures the secret itself in the group `s`, so context words (`Bearer`,
//! `API_KEY=`, the user name of a URL) stay readable. Patterns that start with a key prefix
//! begin with [`L`], a left boundary that also accepts a JSON escape (`\n`, `\"`), because
//! session text is often raw JSON where a secret follows `\n` directly.

use std::ops::Range;
use std::sync::OnceLock;

use regex::{Captures, Regex};

use crate::Kind;

/// Left boundary: start of text, a character that cannot continue a token, or a JSON escape
/// whose letter would otherwise glue onto the secret (`\nsk-…`).
const L: &str = r"(?:\A|[^A-Za-z0-9_]|\\[nrtbf])";

/// Variable / field names whose value is a secret, as `*_KEY`, `*_SECRET`, `*_TOKEN`,
/// `PASSWORD`, … in env style, and the usual lower/camel-case spellings (`api_key`, `apiKey`,
/// `client_secret`, `accessToken`, `password`). A bare `key` is deliberately absent: it is
/// everywhere in ordinary code and data.
pub(crate) const NAME: &str = concat!(
    r"(?:[A-Z][A-Z0-9_]*_(?:KEY|SECRET|TOKEN|PASSWORD|PASSWD|PASS|PWD|PASSPHRASE|CREDENTIALS?|AUTH)",
    r"|(?i:[A-Za-z0-9_.-]*(?:api[_-]?key|api[_-]?secret|app[_-]?secret|secret[_-]?key|client[_-]?secret",
    r"|access[_-]?token|refresh[_-]?token|auth[_-]?token|id[_-]?token|session[_-]?token|bearer[_-]?token",
    r"|private[_-]?key|access[_-]?key|password|passwd|passphrase|secret|token|credentials?)))"
);

/// A rule: its kind, its regex source, and a check that turns a match into the span to redact
/// (or rejects it).
struct Rule {
    kind: Kind,
    pattern: String,
    check: fn(&Captures<'_>, &str) -> Option<Range<usize>>,
}

/// All rules, compiled.
pub(crate) struct Rules {
    regexes: Vec<Regex>,
    rules: Vec<Rule>,
    /// `^NAME$`, for the keys of JSON objects.
    name: Regex,
}

/// One raw finding before merging.
pub(crate) struct Hit {
    pub kind: Kind,
    pub range: Range<usize>,
}

impl Rules {
    /// The compiled rules (built once per process).
    pub(crate) fn get() -> &'static Rules {
        static RULES: OnceLock<Rules> = OnceLock::new();
        RULES.get_or_init(Rules::build)
    }

    fn build() -> Rules {
        let rules = rule_table();
        // The patterns are constants of this file; the unit test `rules_compile` proves they
        // compile, so a failure here is a programming error caught before release.
        let regexes = rules
            .iter()
            .map(|r| {
                Regex::new(&r.pattern).unwrap_or_else(|e| {
                    panic!("scry-redact rule {:?} does not compile: {e}", r.kind)
                })
            })
            .collect();
        let name = Regex::new(&format!("^{NAME}$"))
            .unwrap_or_else(|e| panic!("scry-redact name pattern does not compile: {e}"));
        Rules {
            regexes,
            rules,
            name,
        }
    }

    /// Every rule hit in `text` (unmerged, unordered).
    pub(crate) fn scan(&self, text: &str, out: &mut Vec<Hit>) {
        for (rule, re) in self.rules.iter().zip(&self.regexes) {
            for caps in re.captures_iter(text) {
                if let Some(range) = (rule.check)(&caps, text) {
                    if !range.is_empty() {
                        out.push(Hit {
                            kind: rule.kind,
                            range,
                        });
                    }
                }
            }
        }
    }

    /// Whether a JSON object key names a secret (`api_key`, `OPENAI_API_KEY`, `password`, …).
    pub(crate) fn is_secret_name(&self, key: &str) -> bool {
        key.len() <= 128 && self.name.is_match(key)
    }
}

fn rule_table() -> Vec<Rule> {
    let prefixed =
        |kind: Kind, body: &str, check: fn(&Captures<'_>, &str) -> Option<Range<usize>>| Rule {
            kind,
            pattern: format!("{L}(?P<s>{body})"),
            check,
        };
    vec![
        // Anthropic: `sk-ant-api03-<93 chars>AA`, admin keys `sk-ant-admin01-…`, OAuth
        // `sk-ant-oat01-…` (console.anthropic.com key format).
        prefixed(Kind::AnthropicKey, r"sk-ant-[A-Za-z0-9_-]{20,}", whole),
        // OpenAI: legacy `sk-` + 48 alphanumerics; project / service-account / admin keys
        // `sk-proj-…`, `sk-svcacct-…`, `sk-admin-…` with `-`/`_` in the body
        // (platform.openai.com API-keys page). The body must look random (digit, upper, lower)
        // and hold a run of 8+ between `-`/`_` with a digit and a letter, so a name made of
        // words (`sk-learn-experiments-2024-Final`) is not a key.
        prefixed(
            Kind::OpenAiKey,
            r"sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}",
            openai_body,
        ),
        // DeepSeek: `sk-` + 32 lower-case hex (platform.deepseek.com API keys) — no upper-case
        // letter, so the OpenAI rule's "looks random" test never takes it.
        Rule {
            kind: Kind::DeepseekKey,
            pattern: format!(r"{L}(?P<s>sk-[0-9a-f]{{32}})(?:[^A-Za-z0-9_-]|\z)"),
            check: whole,
        },
        // Any other `sk-` / `sk_` key whose body is machine-made but all lower-case
        // (`sk-live-abc123def456ghi789jkl`, `sk_prod_…`): a run of 12+ letters and digits that
        // switches between them at least four times. Words (`sk-learn-2024-notes`) do not.
        prefixed(Kind::ApiKey, r"sk[-_][A-Za-z0-9_-]{16,}", lower_key_body),
        // Other providers' prefixed keys, one automaton (plain ASCII alternation), each from
        // the provider's documented format: OpenRouter `sk-or-v1-` + 64 hex; DigitalOcean
        // `dop_v1_`/`doo_v1_`/`dor_v1_` + 64 hex; Shopify `shpat_`/`shpca_`/`shppa_`/`shpss_` +
        // 32 hex; Supabase `sbp_` + 40 hex; Databricks `dapi` + 32 hex; Sentry `sntrys_`/
        // `sntryu_`; Linear `lin_api_` + 40; Perplexity `pplx-` + 48; Replicate `r8_` + 37;
        // SendGrid `SG.<22>.<43>`; Postman `PMAK-<24 hex>-<34 hex>`; Pulumi `pul-` + 40 hex;
        // Grafana `glsa_` / `glc_`; Terraform Cloud `<14>.atlasv1.<60+>`.
        Rule {
            kind: Kind::ApiKey,
            pattern: format!(
                r"{L}(?P<s>{})(?:[^A-Za-z0-9_-]|\z)",
                [
                    r"sk-or-v1-[0-9a-f]{64}",
                    r"do[opr]_v1_[0-9a-f]{64}",
                    r"shp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}",
                    r"sbp_[0-9a-f]{40}",
                    r"dapi[0-9a-f]{32}(?:-[0-9])?",
                    r"sntry[su]_[A-Za-z0-9_+/=-]{40,}",
                    r"lin_api_[A-Za-z0-9]{40}",
                    r"pplx-[A-Za-z0-9]{48}",
                    r"r8_[A-Za-z0-9]{37}",
                    r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}",
                    r"PMAK-[0-9a-f]{24}-[0-9a-f]{34}",
                    r"pul-[0-9a-f]{40}",
                    r"glsa_[A-Za-z0-9]{32}_[0-9a-f]{8}",
                    r"glc_[A-Za-z0-9+/=]{32,}",
                    r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}",
                ]
                .join("|")
            ),
            check: whole,
        },
        // Google API key: `AIza` + 35 of [0-9A-Za-z_-] (cloud.google.com "API keys" docs).
        prefixed(Kind::GoogleApiKey, r"AIza[0-9A-Za-z_-]{35}", whole),
        // GitHub: `ghp_|gho_|ghu_|ghs_|ghr_` + 36 base62 chars (GitHub blog "Behind GitHub's new
        // authentication token formats"); fine-grained `github_pat_` + 22 + `_` + 59.
        prefixed(Kind::GithubToken, r"gh[pousr]_[A-Za-z0-9]{36,251}", whole),
        prefixed(Kind::GithubToken, r"github_pat_[A-Za-z0-9_]{22,255}", whole),
        // GitLab: `glpat-` + 20 chars (newer ones longer, with `.`); deploy `gldt-`, runner
        // `glrt-`, trigger `glptt-`, CI job `glcbt-`, feed `glft-` (GitLab token overview docs).
        prefixed(
            Kind::GitlabToken,
            r"gl(?:pat|dt|rt|ptt|cbt|ft)-[A-Za-z0-9_.-]{20,}",
            whole,
        ),
        // Slack: `xoxb-`, `xoxp-`, `xoxa-`, `xoxr-`, `xoxs-`, `xoxe-` tokens and `xapp-` app
        // tokens (api.slack.com "Token types"); `xoxc-` / `xoxd-` browser-session tokens.
        prefixed(Kind::SlackToken, r"xox[abcdeprs]-[A-Za-z0-9-]{10,}", whole),
        prefixed(Kind::SlackToken, r"xapp-[A-Za-z0-9-]{10,}", whole),
        // Slack incoming webhook: hooks.slack.com/services/T…/B…/<secret>.
        Rule {
            kind: Kind::SlackToken,
            pattern: r"hooks\.slack\.com/services/(?P<s>[A-Za-z0-9]+/[A-Za-z0-9]+/[A-Za-z0-9]{8,})".into(),
            check: whole,
        },
        // Stripe: secret `sk_live_`/`sk_test_`, restricted `rk_live_`/`rk_test_`, publishable
        // `pk_live_`/`pk_test_` (public by design, but it names the account), webhook signing
        // secret `whsec_` (stripe.com/docs/keys).
        prefixed(Kind::StripeKey, r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}", whole),
        prefixed(Kind::StripeKey, r"whsec_[A-Za-z0-9]{20,}", whole),
        // AWS access key id: 4-letter prefix (AKIA long-term, ASIA temporary, ABIA, ACCA,
        // A3T…) + 16 of [A-Z0-9] (IAM "Unique identifiers" docs); must not run on into more
        // alphanumerics.
        Rule {
            kind: Kind::AwsAccessKeyId,
            pattern: format!(r"{L}(?P<s>(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{{16}})(?:[^A-Za-z0-9]|\z)"),
            check: whole,
        },
        // AWS secret access key: 40 base64 chars, recognized only by its name nearby.
        Rule {
            kind: Kind::AwsSecretAccessKey,
            pattern: format!(
                r#"{L}(?i:aws_?secret_?access_?key|aws_?secret_?key|secret_?access_?key|SecretAccessKey)\\?["']?\s*(?::?=|:|=>|,)\s*\\?["']?(?P<s>[A-Za-z0-9/+=]{{40}})(?:[^A-Za-z0-9/+=]|\z)"#
            ),
            check: whole,
        },
        // npm: `npm_` + 36 base62 (docs.npmjs.com access tokens).
        prefixed(Kind::NpmToken, r"npm_[A-Za-z0-9]{36}", whole),
        // Hugging Face: `hf_` + 34+ letters (huggingface.co/docs/hub/security-tokens).
        prefixed(Kind::HuggingfaceToken, r"hf_[A-Za-z0-9]{34,}", random_body),
        // PyPI upload token: `pypi-` + macaroon starting with the base64 of "pypi.org".
        prefixed(Kind::PypiToken, r"pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}", whole),
        // xAI (`xai-` + 80 alphanumerics) and Groq (`gsk_` + 52) keys.
        prefixed(Kind::XaiKey, r"xai-[A-Za-z0-9]{40,}", random_body),
        prefixed(Kind::GroqKey, r"gsk_[A-Za-z0-9]{40,}", random_body),
        // `Bearer <token>` (RFC 6750 b64token charset), wherever it appears: headers, curl -H,
        // JSON. The token must hold a digit and a letter, so prose ("the bearer of …") passes.
        Rule {
            kind: Kind::BearerToken,
            pattern: format!(r"{L}(?i:bearer)\s+(?P<s>[A-Za-z0-9._~+/=-]{{12,}})"),
            check: digit_and_letter,
        },
        // `Authorization: Basic <base64>` / `Authorization: token <token>` (RFC 7617, GitHub).
        Rule {
            kind: Kind::Authorization,
            pattern: format!(
                r#"{L}(?i:authorization)\\?["']?\s*[:=]\s*\\?["']?(?i:basic|token)\s+(?P<s>[A-Za-z0-9._~+/=-]{{8,}})"#
            ),
            check: digit_and_letter,
        },
        // JWT: three base64url parts, the first two JSON objects (`eyJ` = `{"`), RFC 7519.
        prefixed(
            Kind::Jwt,
            r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
            whole,
        ),
        // PEM private key block (RFC 7468), PGP private key block (RFC 4880): begin to end,
        // whatever lies between (real newlines, `\n` escapes, headers).
        Rule {
            kind: Kind::PrivateKey,
            pattern: r"(?P<s>-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----)".into(),
            check: whole,
        },
        // … and a block cut short (truncated tool output): the header plus the base64 lines
        // and `Name: value` header lines that follow it.
        Rule {
            kind: Kind::PrivateKey,
            pattern: r"(?P<s>-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:(?:\r?\n|\\r\\n|\\n|[ \t])+(?:[A-Za-z0-9+/=]{4,}|[A-Za-z-]+: [^\r\n\\]*))*)".into(),
            check: whole,
        },
        // `scheme://user:password@host` (RFC 3986 userinfo): only the password goes.
        Rule {
            kind: Kind::UrlPassword,
            pattern: r#"[A-Za-z][A-Za-z0-9+.-]{0,30}://[^\s:/?#@"'<>\\]{1,256}:(?P<s>[^\s/?#@"'<>\\]{1,256})@"#.into(),
            check: url_password,
        },
        // Secret query parameters: OAuth `access_token`, API `key`/`api_key`, signed-URL `sig`
        // / `X-Amz-Signature` / `token`.
        Rule {
            kind: Kind::UrlToken,
            pattern: r#"[?&](?i:access_token|refresh_token|id_token|token|api_key|apikey|key|secret|client_secret|password|sig|signature|x-amz-signature|x-amz-security-token)=(?P<s>[^&#\s"'\\<>]{8,})"#.into(),
            check: value_check,
        },
        // AWS-style context first, then the general assignment: `NAME=value`, `NAME: value`,
        // `export NAME=value`, `"name": "value"`, `\"name\": \"value\"` (JSON inside a JSON
        // string), `name := "value"`, `'name' => 'value'`.
        Rule {
            kind: Kind::SecretAssignment,
            pattern: format!(
                r#"{L}(?P<n>{NAME})(?:\\?["'])?\s*(?P<sep>:?=|=>|:)\s*(?P<q>\\?["'`])?(?P<s>[^\s"'`\\]{{6,}})"#
            ),
            check: assignment,
        },
    ]
}

/// Whole `s` group.
fn whole(caps: &Captures<'_>, _: &str) -> Option<Range<usize>> {
    caps.name("s").map(|m| m.range())
}

fn has_digit(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_digit())
}
fn has_upper(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_uppercase())
}
fn has_lower(s: &str) -> bool {
    s.bytes().any(|b| b.is_ascii_lowercase())
}

/// The `s` group when it looks machine-made: a digit, an upper- and a lower-case letter.
fn random_body(caps: &Captures<'_>, _: &str) -> Option<Range<usize>> {
    let m = caps.name("s")?;
    let s = m.as_str();
    (has_digit(s) && has_upper(s) && has_lower(s)).then(|| m.range())
}

/// [`random_body`], plus one run of 8+ characters between `-`/`_` holding a digit and a letter.
fn openai_body(caps: &Captures<'_>, text: &str) -> Option<Range<usize>> {
    let range = random_body(caps, text)?;
    let s = text.get(range.clone())?;
    s.split(['-', '_'])
        .any(|run| run.len() >= 8 && has_digit(run) && run.bytes().any(|b| b.is_ascii_alphabetic()))
        .then_some(range)
}

/// The `s` group of an `sk-`/`sk_` key (prefix included) when its body is machine-made even
/// without capitals: one run of 12+ ASCII letters and digits (between `-`/`_`) that switches
/// between letter and digit at least four times.
fn lower_key_body(caps: &Captures<'_>, _: &str) -> Option<Range<usize>> {
    let m = caps.name("s")?;
    let body = m.as_str().get(3..)?;
    let random_run = body.split(['-', '_']).any(|run| {
        let b = run.as_bytes();
        let switches = b
            .windows(2)
            .filter(|w| w[0].is_ascii_digit() != w[1].is_ascii_digit())
            .count();
        b.len() >= 12 && has_digit(run) && switches >= 4
    });
    random_run.then(|| m.range())
}

/// The `s` group when it holds a digit and a letter.
fn digit_and_letter(caps: &Captures<'_>, _: &str) -> Option<Range<usize>> {
    let m = caps.name("s")?;
    let s = m.as_str();
    (has_digit(s) && s.bytes().any(|b| b.is_ascii_alphabetic())).then(|| m.range())
}

/// Values that stand for a secret without being one: references, templates, placeholders.
fn is_placeholder(v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    const REF_PREFIXES: &[&str] = &[
        "$",
        "%",
        "{{",
        "<",
        "process.env",
        "os.environ",
        "os.getenv",
        "env.",
        "env[",
        "secrets.",
        "vault:",
        "/",
        "./",
        "../",
        "~/",
        "file:",
        "arn:",
        "@",
    ];
    const WORDS: &[&str] = &[
        "your",
        "xxxx",
        "****",
        "....",
        "placeholder",
        "redacted",
        "dummy",
        "sample",
        "example",
        "changeme",
        "<",
        "${",
        "{{",
        "todo",
    ];
    const EXACT: &[&str] = &[
        "null",
        "none",
        "nil",
        "undefined",
        "true",
        "false",
        "string",
        "password",
        "passwd",
        "secret",
        "token",
        "required",
        "optional",
        "hidden",
        "masked",
        "empty",
        "enabled",
        "disabled",
        "default",
        "auto",
        "inherit",
        "generated",
        "random",
        "unset",
    ];
    if REF_PREFIXES.iter().any(|p| lower.starts_with(p)) {
        return true;
    }
    if WORDS.iter().any(|w| lower.contains(w)) {
        return true;
    }
    if EXACT.contains(&lower.as_str()) {
        return true;
    }
    let mut bytes = v.bytes();
    let first = bytes.next();
    // One repeated character ("********", "xxxxxxxx") or only digits (a port, a count).
    if bytes.all(|b| Some(b) == first) || v.bytes().all(|b| b.is_ascii_digit()) {
        return true;
    }
    false
}

/// A plain identifier (`api_key`, `TokenKind`) or a dotted path (`settings.API_KEY`): in code
/// that is a variable, a type or a field, not a literal secret.
fn is_identifier_like(v: &str) -> bool {
    let ident = |s: &str| {
        let mut b = s.bytes();
        matches!(b.next(), Some(c) if c.is_ascii_alphabetic() || c == b'_' || c == b'$')
            && b.all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'$')
    };
    if v.contains('.') {
        return v.split('.').all(ident) && v.split('.').count() >= 2;
    }
    ident(v) && !has_digit(v)
}

/// For unquoted values: the part before a delimiter that ends a value in code or a command
/// line (`;`, `,`, `&`, `|`, a closing bracket). `None` when the value is code (a call, an index,
/// a generic type).
fn unquoted_value(s: &str) -> Option<usize> {
    let end = s
        .find([';', ',', '&', '|', ')', '}', ']'])
        .unwrap_or(s.len());
    let v = s.get(..end)?;
    if v.contains(['(', '[', '{', '<', '>', '=']) {
        return None;
    }
    Some(end)
}

/// Checks a query-parameter value.
fn value_check(caps: &Captures<'_>, _: &str) -> Option<Range<usize>> {
    let m = caps.name("s")?;
    (!is_placeholder(m.as_str()) && has_digit(m.as_str())).then(|| m.range())
}

/// Checks a URL password.
fn url_password(caps: &Captures<'_>, _: &str) -> Option<Range<usize>> {
    let m = caps.name("s")?;
    let v = m.as_str();
    let lower = v.to_ascii_lowercase();
    if lower.starts_with('$') || lower.starts_with('{') || lower.starts_with('%') {
        return None;
    }
    if [
        "password", "pass", "passwd", "pwd", "secret", "****", "xxxx", "...",
    ]
    .iter()
    .any(|p| lower == *p)
    {
        return None;
    }
    Some(m.range())
}

/// Whether `name` starts a YAML-style line: only indentation (and list dashes) lie between it
/// and the line start, a real newline or a JSON `\n` escape (session text is often raw JSON).
fn starts_line(text: &str, name_start: usize) -> bool {
    let Some(before) = text.get(..name_start) else {
        return false;
    };
    let head = before.trim_end_matches([' ', '\t', '-']);
    head.is_empty()
        || head.ends_with('\n')
        || head.ends_with('\r')
        || head.ends_with("\\n")
        || head.ends_with("\\r")
        || head.ends_with("\\t")
}

/// Whether the value at `end` runs to the end of its line: nothing follows but spaces, a
/// `# comment`, a line break (real or JSON-escaped) or the closing quote of a JSON string.
fn ends_line(text: &str, end: usize) -> bool {
    let Some(after) = text.get(end..) else {
        return false;
    };
    let rest = after.trim_start_matches([' ', '\t']);
    rest.is_empty()
        || rest.starts_with(['\n', '\r', '#', '"'])
        || rest.starts_with("\\n")
        || rest.starts_with("\\r")
}

/// A YAML mapping line `password: supersecret`: a secret-named key alone at the start of its
/// line, a colon, and one lower-case word running to the end of the line. Code that looks
/// alike (`password: String`, `token: str`, `def f(password: str)`, `token: next_token,`) is
/// capitalized, too short, not at a line start, or followed by more code.
fn yaml_value(caps: &Captures<'_>, text: &str, v: &str, end: usize) -> bool {
    let (Some(n), Some(sep)) = (caps.name("n"), caps.name("sep")) else {
        return false;
    };
    sep.as_str() == ":"
        && v.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
        && !v.contains('.')
        && starts_line(text, n.start())
        && ends_line(text, end)
}

/// Checks `NAME = value` and friends; see [`NAME`].
fn assignment(caps: &Captures<'_>, text: &str) -> Option<Range<usize>> {
    let m = caps.name("s")?;
    let name = caps.name("n")?.as_str();
    let quoted = caps.name("q").is_some();
    let env_style = name.bytes().all(|b| !b.is_ascii_lowercase());
    let mut v = m.as_str();
    let mut end = m.end();
    if !quoted {
        let cut = unquoted_value(v)?;
        v = v.get(..cut)?;
        end = m.start() + cut;
    }
    if v.len() < 6 || is_placeholder(v) {
        return None;
    }
    // Code: `token = next_token`, `apiKey: settings.apiKey`, `password: String`. An env-style
    // name (`PASSWORD=hunter`) keeps its value: that is a .env file, not code.
    if !quoted && !env_style && is_identifier_like(v) && !yaml_value(caps, text, v, end) {
        return None;
    }
    Some(m.start()..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_compile() {
        let rules = Rules::get();
        assert_eq!(rules.rules.len(), rules.regexes.len());
        assert!(rules.is_secret_name("OPENAI_API_KEY"));
        assert!(rules.is_secret_name("apiKey"));
        assert!(rules.is_secret_name("client_secret"));
        assert!(!rules.is_secret_name("key"));
        assert!(!rules.is_secret_name("max_tokens"));
        assert!(!rules.is_secret_name("input_tokens"));
    }

    #[test]
    fn placeholders() {
        assert!(is_placeholder("${OPENAI_API_KEY}"));
        assert!(is_placeholder("your-api-key-here"));
        assert!(is_placeholder("********"));
        assert!(is_placeholder("8080"));
        assert!(!is_placeholder("hunter22"));
    }

    #[test]
    fn identifiers() {
        assert!(is_identifier_like("settings.api_key"));
        assert!(is_identifier_like("TokenKind"));
        assert!(!is_identifier_like("hunter2x"));
        assert!(!is_identifier_like("a.b/c"));
    }
}
