//! `scry resume`: the printed command for every demo session, by provider (the forms are
//! documented in `commands/resume.rs`), in the session's directory; refusals for agents
//! without a resume command and for subagent sessions; `--exec` refuses a directory that is
//! gone and runs the agent in the directory that exists.

use crate::util::{claude_line, scry, scry_env};

#[test]
fn resume_prints_each_providers_command_on_the_demo() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    // (uri, expected command line, verified form)
    let ok = [
        ("claude:4f1c2a9e-7b3d-4c8e-9a21-5d6e7f809a1b", "cd /home/demo/projects/webapp && claude --resume 4f1c2a9e-7b3d-4c8e-9a21-5d6e7f809a1b", true),
        ("codex:01a1cf09-1bf0-7a3c-89d2-1f04be6c1d7e", "cd /home/demo/projects/webapp && codex resume 01a1cf09-1bf0-7a3c-89d2-1f04be6c1d7e", true),
        ("gemini:5b8e2f4a-61c3-4d7e-9a21-3c0f7d9e4b12", "cd /home/demo/projects/webapp && gemini --resume 5b8e2f4a-61c3-4d7e-9a21-3c0f7d9e4b12", true),
        ("grok:019fa3c2-5e10-7b4d-9c21-4f8e2a6d0b17", "cd /home/demo/projects/cli-tool && grok --resume 019fa3c2-5e10-7b4d-9c21-4f8e2a6d0b17", true),
        ("opencode:ses_4b7e2a90cffe7Qm3DemoWebApp", "cd /home/demo/projects/webapp && opencode --session ses_4b7e2a90cffe7Qm3DemoWebApp", true),
        ("kilo:ses_4c1d0e20affeKiloDemoCliRun", "cd /home/demo/projects/cli-tool && kilo --session ses_4c1d0e20affeKiloDemoCliRun", true),
        ("cursor:3f9c2a7e-8b14-4d6f-a0c5-71e2d9b4f608", "cd /home/demo/projects/api-server && cursor-agent --resume 3f9c2a7e-8b14-4d6f-a0c5-71e2d9b4f608", true),
        ("copilot:6d2f8a41-93c7-4e05-b1a8-2c7e5f0d9b36", "cd /home/demo/projects/api-server && copilot --resume 6d2f8a41-93c7-4e05-b1a8-2c7e5f0d9b36", true),
    ];
    for (uri, line, verified) in ok {
        let out = scry(h, &["--demo", "resume", uri]);
        assert_eq!(out.code, 0, "{}", out.render());
        assert_eq!(out.stdout, format!("{line}\n"), "{uri}");
        // The demo's directories do not exist on this machine: said, not hidden.
        assert!(out.stderr.contains("no longer exists"), "{}", out.render());
        let js = scry(h, &["--demo", "resume", uri, "--json"]);
        let v = js.json();
        assert_eq!(v["command"], serde_json::json!(line));
        assert_eq!(v["verified"], serde_json::json!(verified));
        assert_eq!(v["cwd_exists"], serde_json::json!(false));
    }
    // Deep Agents: the documented flags, the executable name unverified (said so).
    let out = scry(
        h,
        &[
            "--demo",
            "resume",
            "deepagents:01a30000-demo-7000-8000-00000000da01",
            "--json",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    let argv: Vec<&str> = v["argv"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a.as_str())
        .collect();
    assert_eq!(argv.first(), Some(&"deepagents"));
    assert_eq!(
        &argv[argv.len() - 2..],
        ["-r", "01a30000-demo-7000-8000-00000000da01"]
    );
    assert_eq!(v["verified"], serde_json::json!(false));
    assert!(out.stderr.contains("unverified"));
    // pi: the session file, unverified.
    let out = scry(
        h,
        &[
            "--demo",
            "resume",
            "pi:019a7c3e-5d21-7f4b-9e08-2b6d4c1a8f35",
            "--json",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.render());
    let v = out.json();
    assert_eq!(v["argv"][0], "pi");
    assert_eq!(v["argv"][1], "--session");
    assert!(v["argv"][2].as_str().unwrap().ends_with(".jsonl"));
    // No documented resume: refused with a clear message (exit 2, INVALID_QUERY).
    for uri in [
        "dsh:session-7d3f2a10-5b8e-4c61-9a2f-0e4b6c8d1f23",
        "mtagent:d3m0a1b2c3d4",
        "antigravity:8e2d4b71-3c9a-4f05-b6e8-1a7c0d5f9e24",
    ] {
        let out = scry(h, &["--demo", "resume", uri, "--json"]);
        assert_eq!(out.code, 2, "{}", out.render());
        assert_eq!(out.json()["error"]["code"], "INVALID_QUERY");
        assert!(
            out.stderr.contains("no documented resume command"),
            "{}",
            out.render()
        );
    }
    // A subagent is continued through its parent: refused, naming the reason.
    let out = scry(
        h,
        &["--demo", "resume", "claude:a3c9e1f05b7d2468a", "--json"],
    );
    assert_eq!(out.code, 2, "{}", out.render());
    assert!(out.stderr.contains("subagent"), "{}", out.render());
    // Not found: exit 3.
    let out = scry(h, &["--demo", "resume", "claude:nope-nope-nope"]);
    assert_eq!(out.code, 3, "{}", out.render());
}

/// A Claude session in `cwd`, optionally a subagent (sidechain file under the parent).
fn session(home: &std::path::Path, id: &str, cwd: &str) {
    let dir = home.join(".claude/projects/-work-app");
    std::fs::create_dir_all(&dir).unwrap();
    let body = [
        claude_line("user", id, 0, cwd, "hello"),
        claude_line("assistant", id, 1, cwd, "hi"),
    ]
    .join("\n");
    std::fs::write(dir.join(format!("{id}.jsonl")), body + "\n").unwrap();
}

#[test]
fn resume_exec_refuses_a_missing_directory_and_runs_in_the_existing_one() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let gone = "/nonexistent/scry-test/gone-project";
    session(h, "aaaaaaaa-1111-4222-8333-444444444444", gone);
    let out = scry(
        h,
        &["resume", "aaaaaaaa-1111-4222-8333-444444444444", "--exec"],
    );
    assert_eq!(out.code, 1, "{}", out.render());
    assert!(
        out.stderr.contains(gone),
        "names the directory: {}",
        out.render()
    );

    // An existing directory and a fake `claude` on PATH that records where it ran and how.
    let project = tempfile::tempdir().unwrap();
    let bin = tempfile::tempdir().unwrap();
    let record = bin.path().join("record.txt");
    let fake = bin.path().join("claude");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\npwd > '{}'\necho \"$@\" >> '{}'\nexit 7\n",
            record.display(),
            record.display()
        ),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let cwd = project.path().canonicalize().unwrap();
    let cwd_s = cwd.to_string_lossy().into_owned();
    session(h, "bbbbbbbb-1111-4222-8333-444444444444", &cwd_s);
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    let out = scry_env(
        h,
        h,
        &[("PATH", std::path::Path::new(&path))],
        &["resume", "bbbbbbbb-1111-4222-8333-444444444444", "--exec"],
    );
    assert_eq!(
        out.code,
        7,
        "the agent's exit status is scry's: {}",
        out.render()
    );
    let rec = std::fs::read_to_string(&record).expect("the fake agent ran");
    assert_eq!(
        rec,
        format!("{cwd_s}\n--resume bbbbbbbb-1111-4222-8333-444444444444\n")
    );
    let printed = scry(h, &["resume", "bbbbbbbb-1111-4222-8333-444444444444"]);
    assert_eq!(printed.code, 0);
    assert!(printed.stderr.is_empty(), "{}", printed.render());
}
