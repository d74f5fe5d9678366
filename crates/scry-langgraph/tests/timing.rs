//! Rough timing of `inspect --mode transcript` on the largest corpus threads (printed with
//! `--nocapture`; the bound is generous so a loaded CI machine does not flake).

mod common;

use std::time::Instant;

use scry_langgraph::inspect::{self, InspectArgs, Mode};
use scry_source::Env;

#[test]
fn transcript_of_largest_threads_is_fast() {
    for (db, thread) in [
        (common::dcode_db(), "01a22ce6-01de-7711-b381-af8b8a0a8211"), // 244 checkpoints, 56 messages
        (common::real_db(), "01a22cf1-d681-7529-82a8-e14759aabcb3"), // 7.6 MB, 187 + 30 checkpoints
    ] {
        let args = InspectArgs {
            thread_id: Some(thread.into()),
            db: Some(db),
            mode: Mode::Transcript,
            ..InspectArgs::default()
        };
        let start = Instant::now();
        let runs = 10;
        for _ in 0..runs {
            let out = inspect::run(&args, &Env::with_home("/nonexistent-home"));
            assert_eq!(out.exit_code, 0, "{:?}", out.stderr);
        }
        let per_run = start.elapsed() / runs;
        println!("inspect transcript {thread}: {per_run:?} per run");
        assert!(per_run.as_secs() < 10);
    }
}
