//! The kinds of secret the redactor recognizes, their names in `[redacted:<kind>]` markers and
//! the precedence used when two detectors flag overlapping text.

use std::fmt;

/// What a redacted span was recognized as. The name (see [`Kind::as_str`]) is what appears in
/// the `[redacted:<kind>]` marker and is stable: exports and the HTTP API show it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Kind {
    /// OpenAI API key (`sk-…`, `sk-proj-…`, `sk-svcacct-…`, `sk-admin-…`).
    OpenAiKey,
    /// DeepSeek API key (`sk-` + 32 lower-case hex).
    DeepseekKey,
    /// Another provider's prefixed API key (OpenRouter `sk-or-v1-`, DigitalOcean `dop_v1_`,
    /// Shopify `shpat_`, Supabase `sbp_`, Databricks `dapi`, Sentry `sntryu_`, Linear
    /// `lin_api_`, Perplexity `pplx-`, Replicate `r8_`, SendGrid `SG.`, Postman `PMAK-`, Pulumi
    /// `pul-`, Grafana `glsa_`/`glc_`, Terraform `.atlasv1.`), or an `sk-`/`sk_` key of no
    /// known format with a machine-made lower-case body (`sk-live-abc123def456…`).
    ApiKey,
    /// Anthropic API or OAuth key (`sk-ant-…`).
    AnthropicKey,
    /// Google API key (`AIza…`).
    GoogleApiKey,
    /// GitHub token (`ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_`, `github_pat_`).
    GithubToken,
    /// GitLab token (`glpat-` and the other `gl…-` prefixes).
    GitlabToken,
    /// Slack token (`xoxb-`, `xoxp-`, `xoxc-`, …, `xapp-`) or incoming-webhook path.
    SlackToken,
    /// Stripe secret / restricted / publishable key or webhook secret (`sk_live_`, `rk_live_`,
    /// `pk_live_`, `sk_test_`, `whsec_`).
    StripeKey,
    /// AWS access key id (`AKIA…`, `ASIA…`, `A3T…`).
    AwsAccessKeyId,
    /// AWS secret access key named by its context (`aws_secret_access_key = …`).
    AwsSecretAccessKey,
    /// npm access token (`npm_…`).
    NpmToken,
    /// Hugging Face token (`hf_…`).
    HuggingfaceToken,
    /// PyPI upload token (`pypi-AgEIcHlwaS5vcmc…`).
    PypiToken,
    /// xAI key (`xai-…`).
    XaiKey,
    /// Groq key (`gsk_…`).
    GroqKey,
    /// A bearer token (`Authorization: Bearer …`, `Bearer …`).
    BearerToken,
    /// Credentials in an `Authorization: Basic …` / `token …` header.
    Authorization,
    /// A JSON Web Token (`eyJ….eyJ….…`).
    Jwt,
    /// A PEM / PGP private key block.
    PrivateKey,
    /// The password of `scheme://user:password@host`.
    UrlPassword,
    /// A secret-looking query parameter (`?access_token=…`, `&sig=…`).
    UrlToken,
    /// The value assigned to a secret-named variable or field (`*_KEY`, `*_SECRET`,
    /// `*_TOKEN`, `PASSWORD`, `"api_key": …`).
    SecretAssignment,
    /// A long random-looking string (entropy, length and charset tests).
    HighEntropy,
}

impl Kind {
    /// The stable name used in `[redacted:<name>]`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::OpenAiKey => "openai_key",
            Kind::DeepseekKey => "deepseek_key",
            Kind::ApiKey => "api_key",
            Kind::AnthropicKey => "anthropic_key",
            Kind::GoogleApiKey => "google_api_key",
            Kind::GithubToken => "github_token",
            Kind::GitlabToken => "gitlab_token",
            Kind::SlackToken => "slack_token",
            Kind::StripeKey => "stripe_key",
            Kind::AwsAccessKeyId => "aws_access_key_id",
            Kind::AwsSecretAccessKey => "aws_secret_access_key",
            Kind::NpmToken => "npm_token",
            Kind::HuggingfaceToken => "huggingface_token",
            Kind::PypiToken => "pypi_token",
            Kind::XaiKey => "xai_key",
            Kind::GroqKey => "groq_key",
            Kind::BearerToken => "bearer_token",
            Kind::Authorization => "authorization",
            Kind::Jwt => "jwt",
            Kind::PrivateKey => "private_key",
            Kind::UrlPassword => "url_password",
            Kind::UrlToken => "url_token",
            Kind::SecretAssignment => "secret_assignment",
            Kind::HighEntropy => "high_entropy",
        }
    }

    /// Precedence when overlapping findings are merged into one span: the most specific
    /// detector names the span (a provider prefix beats "assigned to a secret-named variable",
    /// which beats "looks random").
    pub(crate) fn precedence(self) -> u8 {
        match self {
            Kind::HighEntropy => 0,
            Kind::SecretAssignment | Kind::UrlToken => 1,
            // A generic `sk-` key: any provider-specific shape of the same span names it.
            Kind::BearerToken | Kind::Authorization | Kind::UrlPassword | Kind::ApiKey => 2,
            // `sk-ant-` also fits the OpenAI shape; Anthropic must win.
            Kind::OpenAiKey => 3,
            Kind::PrivateKey => 5,
            _ => 4,
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
