//! Running the `scry` binary with a deadline (S-R1 "no hang"): the adversarial and read-only
//! tests use it so a command that loops forever fails the test with its arguments named instead
//! of hanging CI. Hermetic like `util::scry_env`: `env_clear()`, `HOME`, `TZ=UTC`, `SCRY_DB`.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::util::Out;

/// The default deadline of one command (a debug build on a loaded 2-core machine).
pub const DEADLINE: Duration = Duration::from_secs(60);

/// What one timed run gave, and how long it took.
pub struct Timed {
    /// Output and exit status.
    pub out: Out,
    /// Wall time.
    pub took: Duration,
}

/// Runs `scry args…` with `HOME=home`, `SCRY_DB=db`, `TZ=UTC` (plus `vars`) from `home`;
/// kills it and panics when it runs past `deadline`; panics when it panicked.
pub fn run(
    home: &Path,
    db: &Path,
    vars: &[(&str, &str)],
    args: &[&str],
    deadline: Duration,
) -> Timed {
    let start = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_scry"))
        .env_clear()
        .env("HOME", home)
        .env("SCRY_DB", db)
        .env("TZ", "UTC")
        .envs(vars.iter().copied())
        .current_dir(home)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn scry");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let out_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = stdout.read_to_end(&mut b);
        b
    });
    let err_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = stderr.read_to_end(&mut b);
        b
    });
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for scry") {
            break status;
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "scry {} ran past {} s (HOME={})",
                args.join(" "),
                deadline.as_secs(),
                home.display()
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let took = start.elapsed();
    let out = Out {
        stdout: String::from_utf8_lossy(&out_reader.join().unwrap_or_default()).into_owned(),
        stderr: String::from_utf8_lossy(&err_reader.join().unwrap_or_default()).into_owned(),
        code: status.code().unwrap_or(-1),
    };
    // A signal (stack overflow, abort, OOM kill) leaves no exit code: as bad as a panic.
    assert!(
        status.code().is_some(),
        "scry {} died by a signal ({status}):\n{}",
        args.join(" "),
        out.render()
    );
    assert!(
        out.code != 101 && !out.stderr.contains("panicked"),
        "scry {} panicked:\n{}",
        args.join(" "),
        out.render()
    );
    Timed { out, took }
}
