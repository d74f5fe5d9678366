//! Exclusions by provider, path glob and project remove exactly those sources and never open
//! them (proved with a spy around every real provider that records each call), and the config
//! file: where it is read from, how flags add to it, and its exact errors.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use scry_model::{Header, ProviderId};
use scry_source::{Discovery, Emitter, Env, Root, Source, SourceError, SourceFile};
use scry_sources::doctor::ExcludedFiles;
use scry_sources::{
    discover_excluding, doctor, registry, render_text, ExcludeFlags, Excluded, Exclusions,
};

fn real_home() -> PathBuf {
    scry_testkit::corpus()
        .join("real/home")
        .canonicalize()
        .expect("corpus real/home")
}

type Log = Arc<Mutex<Vec<(ProviderId, &'static str, PathBuf)>>>;

/// A real provider with every call recorded: `discover` (with the root), `scan_header`,
/// `parse_into` and `detect` (with the file).
struct Spy {
    inner: Box<dyn Source>,
    log: Log,
}

impl Spy {
    fn note(&self, op: &'static str, path: &Path) {
        self.log
            .lock()
            .unwrap()
            .push((self.inner.id(), op, path.to_path_buf()));
    }
}

impl Source for Spy {
    fn id(&self) -> ProviderId {
        self.inner.id()
    }
    fn roots(&self, env: &Env) -> Vec<Root> {
        self.inner.roots(env)
    }
    fn discover(&self, env: &Env) -> Discovery {
        self.note("discover", env.home());
        self.inner.discover(env)
    }
    fn detect(&self, path: &Path) -> Option<SourceFile> {
        self.note("detect", path);
        self.inner.detect(path)
    }
    fn scan_header(&self, file: &SourceFile) -> Result<Header, SourceError> {
        self.note("scan_header", &file.path);
        self.inner.scan_header(file)
    }
    fn parse_into(&self, file: &SourceFile, out: &mut Emitter<'_>) -> Result<Header, SourceError> {
        self.note("parse_into", &file.path);
        self.inner.parse_into(file, out)
    }
}

fn spied() -> (Vec<Box<dyn Source>>, Log) {
    let log: Log = Arc::default();
    let sources = registry()
        .into_iter()
        .map(|inner| {
            Box::new(Spy {
                inner,
                log: log.clone(),
            }) as Box<dyn Source>
        })
        .collect();
    (sources, log)
}

fn calls(log: &Log, p: ProviderId, op: &str) -> Vec<PathBuf> {
    log.lock()
        .unwrap()
        .iter()
        .filter(|(q, o, _)| *q == p && *o == op)
        .map(|(_, _, path)| path.clone())
        .collect()
}

/// The exclusions used below, against corpus/real/home:
/// - provider codex (3 rollouts);
/// - path `**/subagents/**`: Claude's one subagent transcript (`…/<id>/subagents/agent-*.jsonl`)
///   and Qwen Code's (`.qwen/projects/…/subagents/<sid>/agent-*.jsonl`);
/// - project `/home/dev/work/proj-gemini`: both Gemini files, whose cwd discovery knows from
///   `.gemini/projects.json` (so they are left out unopened);
/// - project `/home/dev/more/work/proj-pi`: pi's one session, whose cwd is only in its records —
///   opened for the bounded header scan, never parsed.
fn exclusions(env: &Env) -> Exclusions {
    let mut ex = Exclusions::new();
    ex.add_flags(
        env,
        &ExcludeFlags {
            providers: vec!["codex".into()],
            paths: vec!["**/subagents/**".into()],
            projects: vec![
                "/home/dev/work/proj-gemini".into(),
                "/home/dev/more/work/proj-pi".into(),
            ],
        },
    )
    .unwrap();
    ex
}

#[test]
fn excluded_sources_are_left_out_and_never_opened() {
    let home = real_home();
    let env = Env::with_home(&home);
    let ex = exclusions(&env);
    let (sources, log) = spied();
    let report = doctor(&env, &sources, &ex);
    let h = |p| report.providers.iter().find(|h| h.provider == p).unwrap();

    // codex: not even discovered.
    assert!(h(ProviderId::Codex).excluded);
    assert_eq!(h(ProviderId::Codex).files_found, 0);
    assert!(log
        .lock()
        .unwrap()
        .iter()
        .all(|(p, _, _)| *p != ProviderId::Codex));

    // claude: the subagent file is left out unopened, the main session parsed.
    let sub = home.join(".claude/projects/-home-dev-work-proj-claude/029942d1-8e5d-4155-96e8-b9fe03dadf8d/subagents/agent-a9975201ec1be8441.jsonl");
    let main = home.join(
        ".claude/projects/-home-dev-work-proj-claude/029942d1-8e5d-4155-96e8-b9fe03dadf8d.jsonl",
    );
    let claude = h(ProviderId::Claude);
    assert_eq!((claude.files_found, claude.parsed), (2, 1));
    assert_eq!(
        claude.excluded_files,
        vec![ExcludedFiles {
            reason: Excluded::Path("**/subagents/**".into()),
            files: 1
        }]
    );
    assert_eq!(calls(&log, ProviderId::Claude, "parse_into"), vec![main]);
    assert!(log.lock().unwrap().iter().all(|(_, _, p)| p != &sub));

    // gemini: both files left out by their discovered cwd, nothing opened.
    let gemini = h(ProviderId::Gemini);
    assert_eq!((gemini.files_found, gemini.parsed), (2, 0));
    assert_eq!(
        gemini.excluded_files,
        vec![ExcludedFiles {
            reason: Excluded::Project("/home/dev/work/proj-gemini".into()),
            files: 2
        }]
    );
    assert!(calls(&log, ProviderId::Gemini, "scan_header").is_empty());
    assert!(calls(&log, ProviderId::Gemini, "parse_into").is_empty());

    // pi: cwd only in the records: one bounded header scan, no parse.
    let pi = h(ProviderId::Pi);
    assert_eq!((pi.files_found, pi.parsed), (1, 0));
    assert_eq!(
        pi.excluded_files[0].reason,
        Excluded::Project("/home/dev/more/work/proj-pi".into())
    );
    assert_eq!(calls(&log, ProviderId::Pi, "scan_header").len(), 1);
    assert!(calls(&log, ProviderId::Pi, "parse_into").is_empty());

    // The rest is untouched: dsh's 4 sessions (`find .dsh -name session.jsonl.zstd`) all parse,
    // and with no cwd hint they are header-scanned for the project check first.
    let dsh = h(ProviderId::Dsh);
    assert_eq!((dsh.files_found, dsh.parsed), (4, 4));
    assert!(dsh.excluded_files.is_empty());
    assert_eq!(calls(&log, ProviderId::Dsh, "parse_into").len(), 4);
    // Qwen's subagent transcript matches the path glob too.
    let qwen = h(ProviderId::Qwen);
    assert_eq!(
        qwen.excluded_files,
        vec![ExcludedFiles {
            reason: Excluded::Path("**/subagents/**".into()),
            files: 1
        }]
    );
    assert_eq!(report.totals.excluded, 1 + 2 + 1 + 1);
    assert_eq!(report.totals.failed, 0);
    // Nothing is ever "detected" (sniffed) by doctor.
    assert!(log.lock().unwrap().iter().all(|(_, op, _)| *op != "detect"));

    let text = render_text(&report);
    assert!(
        text.contains("excluding: providers codex; paths **/subagents/**; projects /home/dev/work/proj-gemini, /home/dev/more/work/proj-pi\n"),
        "{text}"
    );
    assert!(text.contains("\ncodex (Codex CLI): excluded\n"), "{text}");
    assert!(report.unmatched_exclusions.is_empty());
    assert!(!text.contains("matched nothing"), "{text}");
    assert!(
        text.contains("  excluded by path **/subagents/**: 1\n"),
        "{text}"
    );
    assert!(
        text.contains("  excluded by project /home/dev/work/proj-gemini: 2\n"),
        "{text}"
    );
}

/// A glob or project that leaves nothing out is pointed out (a typo is the usual cause).
#[test]
fn unmatched_exclusions_are_reported() {
    let env = Env::with_home(real_home());
    let mut ex = Exclusions::new();
    ex.exclude_path("**/subagent/**", &env).unwrap();
    ex.exclude_path("**/subagents/**", &env).unwrap();
    ex.exclude_project("~/work/proj-claude", &env).unwrap();
    let report = doctor(&env, &registry(), &ex);
    assert_eq!(
        report.unmatched_exclusions,
        vec![
            Excluded::Path("**/subagent/**".into()),
            Excluded::Project(real_home().join("work/proj-claude")),
        ]
    );
    let text = render_text(&report);
    assert!(
        text.contains("matched nothing: path **/subagent/**, project ~/work/proj-claude\n"),
        "{text}"
    );
}

/// The CLI's discovery path: excluded providers are not asked, excluded files are dropped, and
/// nothing is opened (discovery only).
#[test]
fn discover_excluding_opens_nothing() {
    let home = real_home();
    let env = Env::with_home(&home);
    let ex = exclusions(&env);
    let (sources, log) = spied();
    let found = discover_excluding(&sources, &env, &[], &ex);
    assert!(found.iter().all(|d| d.provider != ProviderId::Codex));
    let files = |p| {
        found
            .iter()
            .find(|d| d.provider == p)
            .map_or(0, |d| d.discovery.files.len())
    };
    assert_eq!(files(ProviderId::Claude), 1);
    assert_eq!(files(ProviderId::Gemini), 0);
    // pi's cwd is not known without opening the file: left for the caller's header check.
    assert_eq!(files(ProviderId::Pi), 1);
    assert_eq!(files(ProviderId::Dsh), 4);
    let ops: Vec<&str> = log.lock().unwrap().iter().map(|(_, op, _)| *op).collect();
    assert!(ops.iter().all(|op| *op == "discover"), "{ops:?}");
    // `only` still narrows, and an excluded provider stays out even when asked for.
    let only = discover_excluding(&sources, &env, &[ProviderId::Codex, ProviderId::Pi], &ex);
    assert_eq!(only.len(), 1);
    assert_eq!(only[0].provider, ProviderId::Pi);
}

/// A poison source: a FIFO named like a Claude session. Opening it for reading would block
/// forever, so the test finishing at all proves the excluded path was never opened.
#[cfg(unix)]
#[test]
fn excluded_fifo_is_never_opened() {
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path();
    let dir = h.join(".claude/projects/-w");
    fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("33333333-3333-4333-8333-333333333333.jsonl");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());
    // A spy-free provider that lists every entry of the directory, FIFOs included.
    struct Lister(PathBuf);
    impl Source for Lister {
        fn id(&self) -> ProviderId {
            ProviderId::Claude
        }
        fn roots(&self, _: &Env) -> Vec<Root> {
            vec![Root::new(self.0.clone(), None)]
        }
        fn discover(&self, env: &Env) -> Discovery {
            let files = fs::read_dir(&self.0)
                .unwrap()
                .map(|e| SourceFile::new(ProviderId::Claude, "x", e.unwrap().path()))
                .collect();
            Discovery {
                roots: self.roots(env),
                files,
                warnings: Vec::new(),
            }
        }
        fn parse_into(
            &self,
            file: &SourceFile,
            _: &mut Emitter<'_>,
        ) -> Result<Header, SourceError> {
            fs::read(&file.path).map_err(|e| SourceError::io(&file.path, e))?;
            Ok(Header::new(ProviderId::Claude, "x"))
        }
    }
    let env = Env::with_home(h);
    let mut ex = Exclusions::new();
    ex.exclude_path("~/.claude/projects/-w/3333*", &env)
        .unwrap();
    let sources: Vec<Box<dyn Source>> = vec![Box::new(Lister(dir.clone()))];
    let report = doctor(&env, &sources, &ex);
    assert_eq!(report.providers[0].files_found, 1);
    assert_eq!(report.totals.excluded, 1);
    assert_eq!(report.totals.parsed, 0);

    // The control: without the exclusion the same doctor blocks on the FIFO, until a writer
    // opens and closes it (then the read sees end of file and the source parses).
    let (tx, rx) = std::sync::mpsc::channel();
    let env2 = env.clone();
    let worker = std::thread::spawn(move || {
        let sources: Vec<Box<dyn Source>> = vec![Box::new(Lister(dir))];
        let report = doctor(&env2, &sources, &Exclusions::new());
        tx.send(report.totals.parsed).unwrap();
    });
    let waited = rx.recv_timeout(std::time::Duration::from_millis(300));
    assert!(
        waited.is_err(),
        "an unexcluded FIFO should block the reader"
    );
    drop(fs::OpenOptions::new().write(true).open(&fifo).unwrap());
    assert_eq!(rx.recv_timeout(std::time::Duration::from_secs(10)), Ok(1));
    worker.join().unwrap();
}

#[test]
fn config_file_and_flags_combine() {
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path();
    let env = Env::with_home(h);
    // No file: nothing excluded, no config named.
    let ex = Exclusions::load(&env, &ExcludeFlags::default()).unwrap();
    assert!(ex.is_empty());
    assert_eq!(ex.summary().config_file, None);

    let default_path = h.join(".config/scry/config.toml");
    fs::create_dir_all(default_path.parent().unwrap()).unwrap();
    fs::write(
        &default_path,
        "[exclude]\nproviders = [\"cursor\"]\npaths = [\"**/tmp/**\"]\nprojects = [\"~/scratch\"]\n",
    )
    .unwrap();
    let flags = ExcludeFlags {
        providers: vec!["grok".into(), "cursor".into()],
        paths: vec!["*.zst".into()],
        projects: vec!["/srv/other".into()],
    };
    let s = Exclusions::load(&env, &flags).unwrap().summary();
    assert_eq!(s.config_file, Some(default_path.clone()));
    assert_eq!(s.providers, vec![ProviderId::Cursor, ProviderId::Grok]);
    assert_eq!(s.paths, vec!["**/tmp/**".to_string(), "*.zst".to_string()]);
    assert_eq!(
        s.projects,
        vec![h.join("scratch"), PathBuf::from("/srv/other")]
    );

    // $XDG_CONFIG_HOME wins over ~/.config.
    let xdg = h.join("xdg");
    fs::create_dir_all(xdg.join("scry")).unwrap();
    fs::write(
        xdg.join("scry/config.toml"),
        "[exclude]\nproviders = [\"pi\"]\n",
    )
    .unwrap();
    let env = Env::with_home(h).var_set("XDG_CONFIG_HOME", xdg.display().to_string());
    let s = Exclusions::load(&env, &ExcludeFlags::default())
        .unwrap()
        .summary();
    assert_eq!(s.config_file, Some(xdg.join("scry/config.toml")));
    assert_eq!(s.providers, vec![ProviderId::Pi]);
}

#[test]
fn invalid_config_and_flags_give_exact_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let h = tmp.path();
    let env = Env::with_home(h);
    let path = h.join(".config/scry/config.toml");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let known = ProviderId::ALL.map(|p| p.as_str()).join(", ");

    fs::write(
        &path,
        "# exclusions\n[exclude]\nproviders = [\"claude\", \"curosr\"]\n",
    )
    .unwrap();
    let err = Exclusions::load(&env, &ExcludeFlags::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:3:24: key 'exclude.providers': unknown provider 'curosr' (known: {known})",
            path.display()
        )
    );

    fs::write(
        &path,
        "[exclude]\nproviders = [\"claude\"]\npath = [\"**/tmp/**\"]\n",
    )
    .unwrap();
    let err = Exclusions::load(&env, &ExcludeFlags::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}:3:1: key 'exclude.path': unknown field `path`, expected one of `providers`, `paths`, `projects`",
            path.display()
        )
    );

    fs::write(&path, "[exclude]\nproviders = [\"claude\"\n").unwrap();
    let err = Exclusions::load(&env, &ExcludeFlags::default()).unwrap_err();
    assert!(
        err.to_string().starts_with(&format!("{}:", path.display())),
        "{err}"
    );

    // Not readable as a file.
    fs::remove_file(&path).unwrap();
    fs::create_dir(&path).unwrap();
    let err = Exclusions::load(&env, &ExcludeFlags::default()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("cannot read config file {}: ", path.display())),
        "{err}"
    );
    fs::remove_dir(&path).unwrap();

    let flags = ExcludeFlags {
        providers: vec!["nope".into()],
        ..ExcludeFlags::default()
    };
    let err = Exclusions::load(&env, &flags).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("--exclude-provider: unknown provider 'nope' (known: {known})")
    );
    let flags = ExcludeFlags {
        paths: vec!["a/{b".into()],
        ..ExcludeFlags::default()
    };
    let err = Exclusions::load(&env, &flags).unwrap_err().to_string();
    assert!(
        err.starts_with("--exclude-path: invalid path glob 'a/{b': "),
        "{err}"
    );
}

/// A provider whose discovery panics leaves the others' discovery intact, and says so.
#[test]
fn discover_excluding_survives_a_panicking_provider() {
    struct Boom;
    impl Source for Boom {
        fn id(&self) -> ProviderId {
            ProviderId::Cursor
        }
        fn roots(&self, _: &Env) -> Vec<Root> {
            vec![Root::new(
                PathBuf::from("/nonexistent/boom"),
                Some("BOOM_HOME"),
            )]
        }
        fn discover(&self, _: &Env) -> Discovery {
            panic!("walk exploded")
        }
        fn parse_into(&self, _: &SourceFile, _: &mut Emitter<'_>) -> Result<Header, SourceError> {
            unreachable!("never parsed")
        }
    }
    let env = Env::with_home(real_home());
    let mut sources = registry();
    sources.insert(0, Box::new(Boom));
    let found = discover_excluding(&sources, &env, &[], &Exclusions::new());
    let boom = &found[0].discovery;
    assert!(boom.files.is_empty());
    assert_eq!(boom.roots[0].env_var.as_deref(), Some("BOOM_HOME"));
    assert_eq!(
        boom.warnings[0].message,
        "cursor discovery panicked (a bug in scry): walk exploded"
    );
    let pi = found.iter().find(|d| d.provider == ProviderId::Pi).unwrap();
    assert_eq!(pi.discovery.files.len(), 1);
}
