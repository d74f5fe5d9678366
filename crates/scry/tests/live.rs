//! Live reading (issue 16): `scry events <id> --follow` as a child process while records are
//! appended to a real pi session file (lines copied from a corpus session), and the
//! server-sent event streams of `scry serve` read as raw HTTP.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::{announced_addr, corpus};

/// The corpus pi session whose lines the tests append (28 lines, one record each).
fn pi_source() -> Vec<String> {
    let path = corpus().join(
        "real/home/.pi/agent/sessions/--home-dev-more-work-proj-pi--/\
         2026-11-30T16-01-50-811Z_01a22d30-ecda-727d-b78c-ef0f21e58dab.jsonl",
    );
    let text = std::fs::read_to_string(&path).expect("corpus pi session");
    text.lines().map(str::to_string).collect()
}

/// A home holding the first `n` lines of the pi session; returns (tempdir, home, file).
fn pi_home(n: usize) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let home = tmp.path().join("home");
    let dir = home.join(".pi/agent/sessions/--home-dev-more-work-proj-pi--");
    std::fs::create_dir_all(&dir).expect("session dir");
    let file = dir.join("2026-11-30T16-01-50-811Z_01a22d30-ecda-727d-b78c-ef0f21e58dab.jsonl");
    let lines = pi_source();
    let mut body = lines[..n].join("\n");
    body.push('\n');
    std::fs::write(&file, body).expect("write session");
    (tmp, home, file)
}

fn append(file: &Path, bytes: &str) {
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(file)
        .expect("open for append");
    f.write_all(bytes.as_bytes()).expect("append");
    f.flush().expect("flush");
}

/// A running child whose stdout and stderr lines are collected by two threads; killed on drop.
struct Running {
    child: Child,
    out: Arc<Mutex<Vec<String>>>,
    err: Arc<Mutex<Vec<String>>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn collect(r: impl Read + Send + 'static) -> Arc<Mutex<Vec<String>>> {
    let lines = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&lines);
    std::thread::spawn(move || {
        for l in BufReader::new(r).lines().map_while(Result::ok) {
            if let Ok(mut v) = sink.lock() {
                v.push(l);
            }
        }
    });
    lines
}

impl Running {
    fn start(home: &Path, db: &Path, args: &[&str]) -> Running {
        let mut child = Command::new(env!("CARGO_BIN_EXE_scry"))
            .env_clear()
            .env("HOME", home)
            .env("SCRY_DB", db)
            .env("TZ", "UTC")
            .current_dir(home)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start scry");
        let out = collect(child.stdout.take().expect("stdout"));
        let err = collect(child.stderr.take().expect("stderr"));
        Running { child, out, err }
    }

    fn lines(&self) -> Vec<String> {
        self.out.lock().map(|v| v.clone()).unwrap_or_default()
    }

    /// Waits (up to 30 s: "does not hang") until `pred` holds for the stdout lines.
    fn wait_until(&self, what: &str, pred: impl Fn(&[String]) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if pred(&self.lines()) {
                return;
            }
            if Instant::now() > deadline {
                let err = self.err.lock().map(|v| v.join("\n")).unwrap_or_default();
                panic!(
                    "timed out waiting for {what}\nstdout:\n{}\nstderr:\n{err}",
                    self.lines().join("\n")
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn wait_stderr(&self, needle: &str) {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !self
            .err
            .lock()
            .map(|v| v.iter().any(|l| l.contains(needle)))
            .unwrap_or(false)
        {
            assert!(
                Instant::now() < deadline,
                "no {needle:?} on stderr: {:?}",
                self.err.lock().map(|v| v.clone())
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits (up to 30 s) for the child to exit; its exit code.
    fn wait_exit(&mut self) -> Option<i32> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Ok(Some(st)) = self.child.try_wait() {
                return st.code();
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn interrupt(&self) {
        let ok = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status()
            .expect("kill -INT");
        assert!(ok.success());
    }
}

/// The seqs of the JSON event lines printed after the page (the first line).
fn followed_seqs(lines: &[String]) -> Vec<u64> {
    lines
        .iter()
        .skip(1)
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["seq"].as_u64())
        .collect()
}

/// Appends a whole record, then one written in two parts: each new event is printed once, the
/// torn line only once its newline is there; Ctrl-C ends with exit 0. With and without the index.
#[test]
fn follow_prints_appended_records_once_with_and_without_the_index() {
    let lines = pi_source();
    for no_index in [false, true] {
        let (tmp, home, file) = pi_home(9);
        let mut args = vec!["events", "01a22d30", "--follow", "--json"];
        if no_index {
            args.push("--no-index");
        }
        let mut run = Running::start(&home, &tmp.path().join("index.db"), &args);
        run.wait_stderr("following");
        let first: Value = serde_json::from_str(&run.lines()[0]).expect("page line");
        assert_eq!(first["session_events"], 10, "{first}");
        assert_eq!(first["events"].as_array().map(Vec::len), Some(10));

        // Line 10 is the next user prompt: one event, seq 10.
        append(&file, &format!("{}\n", lines[9]));
        run.wait_until("the appended record", |l| followed_seqs(l) == [10]);
        let row: Value = serde_json::from_str(run.lines().last().unwrap()).unwrap();
        assert_eq!(row["kind"], "user", "{row}");
        assert!(
            row["preview"]
                .as_str()
                .unwrap_or("")
                .contains("hello world"),
            "{row}"
        );

        // Line 11 (a tool call) in two writes: nothing until the newline arrives.
        let (a, b) = lines[10].split_at(lines[10].len() / 2);
        append(&file, a);
        std::thread::sleep(Duration::from_millis(1000));
        assert_eq!(followed_seqs(&run.lines()), [10], "a torn line was printed");
        append(&file, &format!("{b}\n"));
        run.wait_until("the completed record", |l| followed_seqs(l).len() >= 2);
        std::thread::sleep(Duration::from_millis(800));
        assert_eq!(
            followed_seqs(&run.lines()),
            [10, 11],
            "no_index={no_index}: {:#?}",
            run.lines()
        );
        let row: Value = serde_json::from_str(run.lines().last().unwrap()).unwrap();
        assert_eq!(row["kind"], "tool_call", "{row}");
        assert_eq!(row["tool"], "read", "{row}");

        run.interrupt();
        assert_eq!(run.wait_exit(), Some(0), "Ctrl-C ends with exit 0");
    }
}

/// Filters apply to new events; a truncation prints one notice and what is written after it
/// is new; deleting the file ends the follow with one line and exit 0.
#[test]
fn follow_filters_notices_a_truncation_and_ends_when_the_file_goes() {
    let lines = pi_source();
    let (tmp, home, file) = pi_home(9);
    let mut run = Running::start(
        &home,
        &tmp.path().join("index.db"),
        &["events", "01a22d30", "--follow", "--kind", "user"],
    );
    run.wait_stderr("following");
    assert!(run.lines()[0].contains("pi:01a22d30"), "{:?}", run.lines());
    // An assistant line and a user prompt: only the prompt passes --kind user.
    append(&file, &format!("{}\n{}\n", lines[9], lines[10]));
    run.wait_until("the user prompt", |l| {
        l.iter().any(|x| x.starts_with("E11 "))
    });
    std::thread::sleep(Duration::from_millis(600));
    let shown: Vec<String> = run
        .lines()
        .into_iter()
        .filter(|l| l.starts_with('E'))
        .collect();
    assert_eq!(shown.len(), 2, "E3 from the page and E11: {shown:?}");
    assert!(shown[1].contains(" user"), "{shown:?}");

    // Truncated to its first 3 lines, then a prompt appended: a notice, then the prompt (E3).
    let mut body = lines[..3].join("\n");
    body.push('\n');
    std::fs::write(&file, body).expect("truncate");
    run.wait_until("the notice", |l| l.iter().any(|x| x.contains("truncated")));
    append(&file, &format!("{}\n", lines[3]));
    run.wait_until("the prompt after the truncation", |l| {
        l.iter().filter(|x| x.starts_with("E3 ")).count() == 2
    });

    std::fs::remove_file(&file).expect("delete");
    assert_eq!(run.wait_exit(), Some(0), "a deleted source ends the follow");
    let last = run.lines().last().cloned().unwrap_or_default();
    assert!(
        last.contains("was deleted") && last.contains("stopped following"),
        "{last}"
    );
}

/// `--follow` refuses `--relations` (usage, exit 2) and an unknown session is exit 3.
#[test]
fn follow_usage_errors() {
    let (_tmp, home, _) = pi_home(5);
    let out = crate::util::scry(
        &home,
        &["events", "01a22d30", "--follow", "--relations", "3"],
    );
    assert_eq!(out.code, 2, "{}", out.render());
    let out = crate::util::scry(&home, &["events", "nope-nope-nope", "--follow"]);
    assert_eq!(out.code, 3, "{}", out.render());
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.render());
}

/// A `scry serve` on `home` (index in `db`); killed on drop.
fn serve(home: &Path, db: &Path, vars: &[(&str, &str)]) -> (Running, String) {
    let mut run = Running {
        child: Command::new(env!("CARGO_BIN_EXE_scry"))
            .env_clear()
            .env("HOME", home)
            .env("SCRY_DB", db)
            .env("TZ", "UTC")
            .envs(vars.iter().copied())
            .current_dir(home)
            .args(["serve", "--port", "0"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start scry serve"),
        out: Arc::default(),
        err: Arc::default(),
    };
    let addr = announced_addr(&mut run.child);
    (run, addr)
}

/// An open server-sent event stream read as raw HTTP.
struct Sse {
    stream: TcpStream,
    buf: String,
}

impl Sse {
    /// Sends `GET path`; returns the stream after checking the response head.
    fn open(addr: &str, path: &str) -> Sse {
        let mut stream = TcpStream::connect(addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_millis(200)))
            .ok();
        write!(stream, "GET {path} HTTP/1.1\r\nHost: {addr}\r\n\r\n").expect("send");
        let mut sse = Sse {
            stream,
            buf: String::new(),
        };
        sse.read_until("the response head", |b| b.contains("\r\n\r\n"));
        let head = sse.buf.split("\r\n\r\n").next().unwrap_or("").to_string();
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert!(
            head.to_ascii_lowercase()
                .contains("content-type: text/event-stream"),
            "{head}"
        );
        sse
    }

    /// Reads until `pred` holds for everything read so far (30 s at most).
    fn read_until(&mut self, what: &str, pred: impl Fn(&str) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut chunk = [0u8; 8192];
        while !pred(&self.buf) {
            assert!(
                Instant::now() < deadline,
                "no {what} in the stream:\n{}",
                self.buf
            );
            match self.stream.read(&mut chunk) {
                Ok(0) => panic!("stream closed before {what}:\n{}", self.buf),
                Ok(n) => self.buf.push_str(&String::from_utf8_lossy(&chunk[..n])),
                Err(_) => {}
            }
        }
    }

    /// The `data` of every message of kind `event` read so far.
    fn data(&self, event: &str) -> Vec<Value> {
        let marker = format!("event: {event}\ndata: ");
        self.buf
            .split(&marker)
            .skip(1)
            .filter_map(|rest| serde_json::from_str(rest.lines().next().unwrap_or("")).ok())
            .collect()
    }
}

/// The session stream delivers an appended record once, with the event route's row; the list
/// stream reports the session as grown. Both stay open past the request timeout (500 ms here:
/// the events arrive after more than a second).
#[test]
fn sse_streams_deliver_appended_events_and_list_changes() {
    let lines = pi_source();
    let (tmp, home, file) = pi_home(9);
    let (_server, addr) = serve(
        &home,
        &tmp.path().join("index.db"),
        &[("SCRY_SERVE_REQUEST_TIMEOUT_MS", "500")],
    );
    let uri = "pi:01a22d30-ecda-727d-b78c-ef0f21e58dab";
    let mut s = Sse::open(&addr, "/v1/sessions/01a22d30/stream");
    s.read_until("ready", |b| b.contains("event: ready"));
    assert_eq!(s.data("ready")[0]["session_events"], 10, "{}", s.buf);
    let mut filtered = Sse::open(&addr, "/v1/sessions/01a22d30/stream?kind=tool_call");
    filtered.read_until("ready", |b| b.contains("event: ready"));
    let mut l = Sse::open(&addr, "/v1/stream");
    l.read_until("the hello", |b| b.contains(": scry list stream"));
    // The list poller takes its baseline within a poll or two.
    std::thread::sleep(Duration::from_millis(1500));

    append(&file, &format!("{}\n{}\n", lines[9], lines[10]));
    s.read_until("the new events", |b| b.contains("event: events"));
    let got = s.data("events");
    assert_eq!(got.len(), 1, "{}", s.buf);
    assert_eq!(got[0]["session"], uri);
    assert_eq!(got[0]["session_events"], 12);
    let seqs: Vec<u64> = got[0]["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["seq"].as_u64())
        .collect();
    assert_eq!(seqs, [10, 11], "{}", s.buf);
    assert!(s.buf.contains("id: 12\n"), "{}", s.buf);
    // The rows are the events route's rows.
    let (status, _, body) = crate::util::http_get(
        &addr,
        "/v1/sessions/01a22d30/events?seq=10-11",
        Duration::from_secs(30),
    );
    assert_eq!(status, 200, "{body}");
    let page: Value = serde_json::from_str(&body).expect("events JSON");
    assert_eq!(page["events"], got[0]["events"]);

    filtered.read_until("the filtered event", |b| b.contains("event: events"));
    let only: Vec<Value> = filtered.data("events")[0]["events"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(only.len(), 1, "{}", filtered.buf);
    assert_eq!(only[0]["seq"], 11);
    assert_eq!(only[0]["kind"], "tool_call");

    l.read_until("the list change", |b| b.contains("event: session"));
    let change = &l.data("session")[0];
    assert_eq!(change["change"], "grew", "{change}");
    assert_eq!(change["session"]["uri"], uri, "{change}");

    // Nothing is sent twice: a quiet second later the stream still holds one events message.
    std::thread::sleep(Duration::from_millis(1000));
    let mut rest = [0u8; 4096];
    if let Ok(n) = s.stream.read(&mut rest) {
        s.buf.push_str(&String::from_utf8_lossy(&rest[..n]));
    }
    assert_eq!(s.data("events").len(), 1, "{}", s.buf);

    // Deleting the file ends the session stream with `gone`.
    std::fs::remove_file(&file).expect("delete");
    s.read_until("gone", |b| b.contains("event: gone"));
}

/// Stream payloads are redacted like every answer of `scry serve`, and an open stream holds
/// one of the capped connections (a request beyond the cap is refused with 503).
#[test]
fn sse_payloads_are_redacted_and_streams_count_against_the_connection_cap() {
    let lines = pi_source();
    let (tmp, home, file) = pi_home(9);
    let (_server, addr) = serve(
        &home,
        &tmp.path().join("index.db"),
        &[("SCRY_SERVE_MAX_CONNECTIONS", "2")],
    );
    let mut s = Sse::open(&addr, "/v1/sessions/01a22d30/stream");
    s.read_until("ready", |b| b.contains("event: ready"));
    let mut l = Sse::open(&addr, "/v1/stream");
    l.read_until("the hello", |b| b.contains(": scry list stream"));
    let (status, _, body) = crate::util::http_get(&addr, "/health", Duration::from_secs(30));
    assert_eq!(status, 503, "two streams fill a cap of two: {body}");
    drop(l);

    // A user prompt (line 10 of the corpus session) carrying a secret.
    let key = "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfGhIjKlMnOp";
    let mut v: Value = serde_json::from_str(&lines[9]).expect("pi line");
    v["message"]["content"][0]["text"] = Value::from(format!("use the key {key} please"));
    append(&file, &format!("{v}\n"));
    s.read_until("the new event", |b| b.contains("event: events"));
    let got = &s.data("events")[0]["events"][0];
    let preview = got["preview"].as_str().unwrap_or("");
    assert!(preview.contains("[redacted:"), "{got}");
    assert!(!s.buf.contains(key), "{}", s.buf);
}
