//! The Deep Agents thread inspector (S-L5): the JSON, warnings, error messages and exit codes
//! of `inspect_sessions.py` (deepagents-code 0.1.57), as pure functions over already-parsed
//! arguments, so a CLI can wire `scry inspect` in a few lines.
//!
//! Deliberate differences from 0.1.57 (its bugs; LangGraph's own rebuild is the truth): a
//! delta-channel snapshot is unwrapped instead of being reported as malformed (thread …0e
//! shows all 12 messages, not 2), the history behind a delta channel is replayed along the
//! parent chain, a dict-form `Overwrite` and the removal of an absent id do not crash, and an
//! unreadable database is a one-line error instead of a traceback.

mod render;

use std::path::{Path, PathBuf};

use scry_source::Env;

pub use render::{is_turn_start, role, truncate};

use crate::db::{Db, OpenError};
use crate::pyjson;
use crate::reconstruct;
use crate::threads::{self, ResolveError};
use crate::value::Value;

/// `--mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Thread summary only.
    Summary,
    /// The last turn (default).
    #[default]
    LatestTurn,
    /// Preamble and every turn.
    Transcript,
}

impl Mode {
    /// Parses `summary` / `latest-turn` / `transcript`.
    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "summary" => Some(Mode::Summary),
            "latest-turn" => Some(Mode::LatestTurn),
            "transcript" => Some(Mode::Transcript),
            _ => None,
        }
    }
}

/// Parsed arguments, as `inspect_sessions.py` accepts them.
#[derive(Debug, Clone)]
pub struct InspectArgs {
    /// Full thread id or unique prefix.
    pub thread_id: Option<String>,
    /// `--db PATH` (else the default location rules apply).
    pub db: Option<PathBuf>,
    /// `--mode`.
    pub mode: Mode,
    /// `--list N`.
    pub list: Option<i64>,
    /// `--max-content N` (default 4000).
    pub max_content: i64,
    /// `--include-metadata`.
    pub include_metadata: bool,
}

impl Default for InspectArgs {
    fn default() -> Self {
        InspectArgs {
            thread_id: None,
            db: None,
            mode: Mode::LatestTurn,
            list: None,
            max_content: 4000,
            include_metadata: false,
        }
    }
}

/// What the script would have printed, and its exit code.
#[derive(Debug, Clone, PartialEq)]
pub struct InspectOutput {
    /// The result (with keys in the script's order), `None` on error.
    pub result: Option<Value>,
    /// stdout: `json.dumps(result, indent=2, ensure_ascii=False)` plus a newline; empty on error.
    pub stdout: String,
    /// stderr lines (the error message, one entry; may contain newlines for candidate lists).
    pub stderr: Vec<String>,
    /// 0 on success, 1 on every error the script reports with `SystemExit(message)`.
    pub exit_code: i32,
    /// What kind of error it was (`None` on success), for callers whose exit codes distinguish
    /// "not found" from other failures (the script's is always 1).
    pub failure: Option<Failure>,
}

/// The kind of an inspector error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// Bad or conflicting arguments (`--list 0`, neither a thread id nor `--list`).
    Usage,
    /// No root thread has this id or prefix.
    ThreadNotFound,
    /// Several root threads start with the prefix (the candidates, sorted).
    Ambiguous(Vec<String>),
    /// The sessions database does not exist.
    DatabaseNotFound,
    /// Anything else (an unreadable database, a bad `DEEPAGENTS_HOME`).
    Other,
}

/// An error message and its kind.
struct Fail(Failure, String);

impl From<String> for Fail {
    fn from(message: String) -> Self {
        Fail(Failure::Other, message)
    }
}

impl InspectOutput {
    /// The result as `serde_json::Value` (key order not kept).
    pub fn json(&self) -> Option<serde_json::Value> {
        self.result.as_ref().map(Value::to_json)
    }

    fn ok(result: Value) -> Self {
        let mut stdout = pyjson::dumps_pretty(&result);
        stdout.push('\n');
        InspectOutput {
            result: Some(result),
            stdout,
            stderr: Vec::new(),
            exit_code: 0,
            failure: None,
        }
    }

    fn fail(failure: Failure, message: impl Into<String>) -> Self {
        InspectOutput {
            result: None,
            stdout: String::new(),
            stderr: vec![message.into()],
            exit_code: 1,
            failure: Some(failure),
        }
    }
}

fn py_repr(s: &str) -> String {
    if s.contains('\'') && !s.contains('"') {
        format!("\"{s}\"")
    } else {
        format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

fn expand_user(path: &str, env: &Env) -> PathBuf {
    if path == "~" {
        env.home().to_path_buf()
    } else if let Some(rest) = path.strip_prefix("~/") {
        env.home().join(rest)
    } else {
        PathBuf::from(path)
    }
}

/// The default sessions database: `DEEPAGENTS_SESSIONS_DB`, else
/// `$DEEPAGENTS_HOME/.state/sessions.db` (absolute or `~/…` only), else
/// `~/.deepagents/.state/sessions.db`. `Err` is the script's error message.
pub fn default_db_path(env: &Env) -> Result<PathBuf, String> {
    if let Some(explicit) = env.var("DEEPAGENTS_SESSIONS_DB") {
        return Ok(expand_user(explicit, env));
    }
    let root = match env.var("DEEPAGENTS_HOME") {
        None => env.home().join(".deepagents"),
        Some(v) if v.starts_with("~/") => env.home().join(v[2..].trim_start_matches('/')),
        Some(v) if v.starts_with('~') => return Err(
            "Invalid DEEPAGENTS_HOME: only an absolute path or a leading '~/' path is supported; \
                        '~user' forms are not allowed."
                .into(),
        ),
        Some(v) if !Path::new(v).is_absolute() => {
            return Err(format!(
                "Invalid DEEPAGENTS_HOME {}: use an absolute path or a path beginning with '~/'.",
                py_repr(v)
            ))
        }
        Some(v) => PathBuf::from(v),
    };
    Ok(root.join(".state").join("sessions.db"))
}

fn resolved_display(path: &Path, env: &Env) -> PathBuf {
    let expanded = expand_user(&path.to_string_lossy(), env);
    std::fs::canonicalize(&expanded)
        .or_else(|_| std::path::absolute(&expanded))
        .unwrap_or(expanded)
}

/// Runs the inspector. `env` supplies the home directory and the `DEEPAGENTS_*` variables.
pub fn run(args: &InspectArgs, env: &Env) -> InspectOutput {
    let db_path = match &args.db {
        Some(p) => p.clone(),
        None => match default_db_path(env) {
            Ok(p) => p,
            Err(e) => return InspectOutput::fail(Failure::Other, e),
        },
    };
    if args.max_content < 1 {
        return InspectOutput::fail(Failure::Usage, "--max-content must be positive");
    }
    if args.list.is_some_and(|n| n < 1) {
        return InspectOutput::fail(Failure::Usage, "--list must be positive");
    }
    let thread = args.thread_id.as_deref().filter(|t| !t.is_empty());
    match (args.list, thread) {
        (None, None) => {
            return InspectOutput::fail(Failure::Usage, "Provide a thread ID or use --list N")
        }
        (Some(_), Some(_)) => {
            return InspectOutput::fail(
                Failure::Usage,
                "Use either a thread ID or --list N, not both",
            )
        }
        _ => {}
    }
    let resolved = resolved_display(&db_path, env);
    let db = match Db::open(&resolved) {
        Ok(db) => db,
        Err(OpenError::NotFound(_)) => {
            return InspectOutput::fail(
                Failure::DatabaseNotFound,
                format!("Sessions database not found: {}", resolved.display()),
            )
        }
        Err(e) => return InspectOutput::fail(Failure::Other, e.to_string()),
    };
    let database = Value::Str(resolved.display().to_string());
    let result = match (args.list, thread) {
        (Some(n), _) => list(&db, database, n, args).map_err(Fail::from),
        (None, Some(t)) => inspect_thread(&db, database, t, args),
        (None, None) => Err(Fail(
            Failure::Usage,
            "Provide a thread ID or use --list N".to_string(),
        )),
    };
    match result {
        Ok(v) => InspectOutput::ok(v),
        Err(Fail(kind, message)) => InspectOutput::fail(kind, message),
    }
}

fn sql(e: rusqlite::Error) -> String {
    format!("Cannot read sessions database: {e}")
}

fn list(db: &Db, database: Value, n: i64, args: &InspectArgs) -> Result<Value, String> {
    let mut warnings = Vec::new();
    if args.include_metadata || args.mode != Mode::LatestTurn {
        warnings.push(Value::Str(
            "--mode and --include-metadata are ignored when listing threads.".into(),
        ));
    }
    let limit = usize::try_from(n).unwrap_or(usize::MAX);
    let rows = threads::recent_threads(db).map_err(sql)?;
    let list = rows
        .into_iter()
        .take(limit)
        .map(|(id, agg)| {
            Value::Map(vec![
                ("thread_id".into(), Value::Str(id)),
                ("updated_at".into(), agg.updated_at.unwrap_or(Value::Null)),
                ("created_at".into(), agg.created_at.unwrap_or(Value::Null)),
                ("agent_name".into(), agg.agent_name.unwrap_or(Value::Null)),
                ("git_branch".into(), agg.git_branch.unwrap_or(Value::Null)),
                ("cwd".into(), agg.cwd.unwrap_or(Value::Null)),
                ("checkpoint_count".into(), Value::Int(agg.checkpoint_count)),
            ])
        })
        .collect();
    let mut out = vec![
        ("database".to_string(), database),
        ("threads".to_string(), Value::Array(list)),
    ];
    if !warnings.is_empty() {
        out.push(("warnings".into(), Value::Array(warnings)));
    }
    Ok(Value::Map(out))
}

fn writes_count(db: &Db, thread_id: &str) -> rusqlite::Result<i64> {
    db.connection().query_row(
        "SELECT COUNT(*) FROM writes WHERE thread_id = ?1 AND checkpoint_ns = ''",
        [thread_id],
        |r| r.get(0),
    )
}

fn inspect_thread(
    db: &Db,
    database: Value,
    value: &str,
    args: &InspectArgs,
) -> Result<Value, Fail> {
    let thread_id = threads::resolve_thread_id(db, value).map_err(|e| match e {
        ResolveError::Sqlite(s) => Fail(
            Failure::Other,
            format!("Cannot read sessions database: {s}"),
        ),
        ResolveError::NotFound(_) => Fail(Failure::ThreadNotFound, e.to_string()),
        ResolveError::Ambiguous(ref c) => Fail(Failure::Ambiguous(c.clone()), e.to_string()),
    })?;
    let mut warnings: Vec<String> = db.open_notes().to_vec();
    let rebuilt = reconstruct::thread_messages(db, &thread_id, "").map_err(sql)?;
    warnings.extend(rebuilt.warnings.iter().cloned());
    let messages = rebuilt.messages;

    let agg = threads::aggregate(db, &thread_id, "").map_err(sql)?;
    let latest = db.latest_checkpoint(&thread_id, "").map_err(sql)?;
    let metadata =
        match threads::decode_metadata(latest.as_ref().and_then(|r| r.metadata.as_deref())) {
            Ok(m) => m,
            Err(w) => {
                warnings.push(w.to_string());
                Value::Map(Vec::new())
            }
        };
    let field = |k: &str| render::meta_field(&metadata, k);
    let summary = Value::Map(vec![
        ("thread_id".into(), Value::Str(thread_id.clone())),
        ("agent_name".into(), field("agent_name")),
        (
            "created_at".into(),
            agg.created_at.clone().unwrap_or(Value::Null),
        ),
        (
            "updated_at".into(),
            agg.updated_at.clone().unwrap_or(Value::Null),
        ),
        (
            "latest_checkpoint_id".into(),
            render::opt_str(agg.latest_checkpoint_id.as_deref()),
        ),
        ("checkpoint_count".into(), Value::Int(agg.checkpoint_count)),
        (
            "writes_count".into(),
            Value::Int(writes_count(db, &thread_id).map_err(sql)?),
        ),
        ("git_branch".into(), field("git_branch")),
        ("git_commit_sha".into(), field("git_commit_sha")),
        ("cwd".into(), field("cwd")),
        ("repository_name".into(), field("repository_name")),
        ("repository_url".into(), field("repository_url")),
        ("message_count".into(), Value::Int(messages.len() as i64)),
    ]);
    let mut out = vec![
        ("database".to_string(), database),
        ("thread".to_string(), summary),
    ];
    if args.include_metadata {
        out.push(("latest_metadata".into(), metadata.clone()));
    }
    if args.mode != Mode::Summary {
        let max = usize::try_from(args.max_content).unwrap_or(usize::MAX);
        let (turns, preamble) = render::turns(&messages, max, &mut warnings);
        out.push(("turn_count".into(), Value::Int(turns.len() as i64)));
        if args.mode == Mode::LatestTurn {
            let latest_turn = match turns.into_iter().last() {
                Some(Value::Map(mut t)) => {
                    t.push(("stored_turn_number".into(), field("turn_number")));
                    t.push(("turn_id".into(), field("turn_id")));
                    Value::Map(t)
                }
                _ => Value::Null,
            };
            out.push(("latest_turn".into(), latest_turn));
        } else {
            out.push(("preamble".into(), Value::Array(preamble)));
            out.push(("turns".into(), Value::Array(turns)));
        }
    }
    if !warnings.is_empty() {
        out.push((
            "warnings".into(),
            Value::Array(warnings.into_iter().map(Value::Str).collect()),
        ));
    }
    Ok(Value::Map(out))
}
