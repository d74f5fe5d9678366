//! Bounded time on large and adversarial inputs (S-R1, S-R3): 10 MB texts of ordinary session
//! content with secrets sprinkled in, and 10 MB texts built to hurt each detector (prefixes
//! that never complete, BEGIN lines without END, one giant token, endless `name=` runs).
//!
//! The guard is against super-linear behaviour, not a benchmark: each adversarial shape is timed
//! at 1 MB and at 10 MB in the same run, and the larger may take at most [`MAX_RATIO`] times as
//! long (linear is 10×, quadratic 100×), plus [`SLACK`] for scheduling noise on a loaded
//! machine. A ratio measured back to back holds where an absolute bound drifts with the load.
//! The measured times are printed.

mod common;

use std::time::{Duration, Instant};

use common::Rng;
use scry_redact::{find, redact};

const SIZE: usize = 10 * 1024 * 1024;
/// Largest allowed time(10 MB) / time(1 MB).
const MAX_RATIO: u32 = 30;
/// Added to the allowed time of the 10 MB run.
const SLACK: Duration = Duration::from_secs(2);

fn repeat_to(unit: &str, size: usize) -> String {
    unit.repeat(size / unit.len().max(1) + 1)
}

fn timed(label: &str, text: &str) -> (usize, Duration) {
    let start = Instant::now();
    let n = find(text).len();
    let took = start.elapsed();
    println!(
        "{label}: {} MB in {:.2} s, {n} findings",
        text.len() / (1024 * 1024),
        took.as_secs_f64()
    );
    (n, took)
}

/// Times `text` against its first tenth (cut on a char boundary) and asserts near-linear growth.
fn linear(label: &str, text: &str) -> usize {
    let mut cut = text.len() / 10;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let (_, small) = timed(label, &text[..cut]);
    let (n, large) = timed(label, text);
    assert!(
        large <= small * MAX_RATIO + SLACK,
        "{label}: 10× the input took {large:?} against {small:?} (more than {MAX_RATIO}×)"
    );
    n
}

#[test]
fn ten_mb_of_session_text() {
    let mut rng = Rng::new(42);
    let mut text = String::with_capacity(SIZE + 4096);
    let mut planted = 0;
    while text.len() < SIZE {
        text.push_str(
            "{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"",
        );
        text.push_str(
            "Running the tests now. The failure is in crates/scry-source/src/jsonl.rs line 42.\\n",
        );
        text.push_str(&format!("commit {}\\n", rng.hex(40)));
        if rng.below(50) == 0 {
            text.push_str(&format!("export GITHUB_TOKEN=ghp_{}\\n", rng.alnum(36)));
            planted += 1;
        }
        text.push_str("\"}]}}\n");
    }
    let n = linear("session text", &text);
    assert_eq!(n, planted);
    let (out, _) = redact(&text);
    assert!(!out.contains("ghp_"));
}

#[test]
fn ten_mb_adversarial() {
    let cases = [
        (
            "unfinished prefixes",
            repeat_to("sk-ant- AKIA ghp_ xoxb- eyJ.eyJ. ", SIZE),
        ),
        (
            "BEGIN without END",
            repeat_to("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n", SIZE),
        ),
        ("one giant token", repeat_to("Ab3", SIZE)),
        ("assignment runs", repeat_to("api_key=api_key=", SIZE)),
        ("url userinfo runs", repeat_to("https://user:pw", SIZE)),
        ("escapes", repeat_to("\\n\\\"\\u00", SIZE)),
        ("bearer words", repeat_to("Bearer Bearer ", SIZE)),
        ("letters", "a".repeat(SIZE)),
    ];
    for (label, text) in &cases {
        linear(label, text);
    }
}
