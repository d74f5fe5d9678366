//! Writes a synthetic Claude Code session of about a given size, for memory and speed checks:
//! turns of a prompt, an assistant message split over three lines (thinking, text, tool_use)
//! with growing usage, a Bash result with its structured `toolUseResult`, and bookkeeping lines.
//!
//! `cargo run --release -p scry-source-claude --example gen_big -- <out.jsonl> <megabytes>`

use std::io::{BufWriter, Write};

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(out), Some(mb)) = (args.next(), args.next()) else {
        eprintln!("usage: gen_big <out.jsonl> <megabytes>");
        std::process::exit(2);
    };
    let Ok(mb) = mb.parse::<u64>() else {
        eprintln!("not a number of megabytes: {mb}");
        std::process::exit(2);
    };
    let target = mb * 1024 * 1024;
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(&out)?);
    let sid = "6e000000-0000-4000-8000-000000000000";
    let env = format!(
        r#""sessionId":"{sid}","cwd":"/home/demo/big","version":"2.1.332","gitBranch":"main","userType":"external""#
    );
    let filler = "lorem ipsum dolor sit amet ".repeat(20);
    let mut written = 0u64;
    let mut turn = 0u64;
    let mut parent = String::from("null");
    while written < target {
        turn += 1;
        let ts = format!(
            "2026-11-01T{:02}:{:02}:{:02}.000Z",
            (turn / 3600) % 24,
            (turn / 60) % 60,
            turn % 60
        );
        let mut lines = Vec::new();
        let u = format!("{turn:08x}-0000-4000-8000-000000000001");
        lines.push(format!(r#"{{"parentUuid":{parent},"type":"user","message":{{"role":"user","content":"Turn {turn}: please run the tests and explain {filler}"}},"uuid":"{u}","timestamp":"{ts}",{env}}}"#));
        let msg = format!("msg_{turn:020x}");
        let call = format!("toolu_{turn:020x}");
        let blocks = [
            format!(
                r#"{{"type":"thinking","thinking":"I should run the tests for turn {turn}. {filler}","signature":"c2lnbmF0dXJl"}}"#
            ),
            format!(r#"{{"type":"text","text":"Running the tests now. {filler}"}}"#),
            format!(
                r#"{{"type":"tool_use","id":"{call}","name":"Bash","input":{{"command":"cargo test --quiet","description":"Run tests"}}}}"#
            ),
        ];
        let mut prev = u.clone();
        for (i, b) in blocks.iter().enumerate() {
            let a = format!("{turn:08x}-0000-4000-8000-00000000010{i}");
            let out_tokens = 40 * (i as u64 + 1);
            lines.push(format!(r#"{{"parentUuid":"{prev}","type":"assistant","requestId":"req_{turn:020x}","message":{{"id":"{msg}","type":"message","role":"assistant","model":"claude-opus-5-5","content":[{b}],"stop_reason":null,"usage":{{"input_tokens":600,"cache_creation_input_tokens":1200,"cache_read_input_tokens":11000,"output_tokens":{out_tokens}}}}},"uuid":"{a}","timestamp":"{ts}",{env}}}"#));
            prev = a;
        }
        lines.push(format!(r#"{{"type":"progress","data":{{"type":"bash_progress","output":"running"}},"toolUseID":"{call}","uuid":"{turn:08x}-0000-4000-8000-000000000200","timestamp":"{ts}",{env}}}"#));
        let r = format!("{turn:08x}-0000-4000-8000-000000000300");
        let failed = turn.is_multiple_of(7);
        lines.push(format!(r#"{{"parentUuid":"{prev}","type":"user","message":{{"role":"user","content":[{{"tool_use_id":"{call}","type":"tool_result","content":"test result: ok. 42 passed {filler}","is_error":{failed}}}]}},"toolUseResult":{{"stdout":"test result: ok. 42 passed","stderr":"","interrupted":false,"isImage":false}},"uuid":"{r}","timestamp":"{ts}",{env}}}"#));
        lines.push(format!(r#"{{"type":"last-prompt","lastPrompt":"Turn {turn}","leafUuid":"{r}","sessionId":"{sid}"}}"#));
        parent = format!("\"{r}\"");
        for l in lines {
            w.write_all(l.as_bytes())?;
            w.write_all(b"\n")?;
            written += l.len() as u64 + 1;
        }
    }
    w.flush()?;
    eprintln!("{out}: {turn} turns, {written} bytes");
    Ok(())
}
