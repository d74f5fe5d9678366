//! `scry-bench gen --profile small|default|large [--seed N] --out DIR`: writes a benchmark corpus
//! laid out as a HOME directory (see the crate docs) and prints a summary. The measuring side is
//! `bench/run.py`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

const USAGE: &str = "usage: scry-bench gen --profile tiny|small|default|large [--seed N] --out DIR";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) != Some("gen") {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    let mut profile = None;
    let mut seed = 1u64;
    let mut out = None;
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        let v = it.next();
        match (a.as_str(), v) {
            ("--profile", Some(v)) => match scry_bench::Profile::parse(v) {
                Some(p) => profile = Some(p),
                None => {
                    eprintln!("unknown profile {v:?}; {USAGE}");
                    return ExitCode::from(2);
                }
            },
            ("--seed", Some(v)) => match v.parse() {
                Ok(s) => seed = s,
                Err(_) => {
                    eprintln!("bad seed {v:?}; {USAGE}");
                    return ExitCode::from(2);
                }
            },
            ("--out", Some(v)) => out = Some(PathBuf::from(v)),
            _ => {
                eprintln!("unexpected argument {a:?}; {USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let (Some(profile), Some(out)) = (profile, out) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let started = Instant::now();
    match scry_bench::generate(profile, seed, &out) {
        Ok(m) => {
            let j = m.to_json();
            println!(
                "profile {} seed {}: {} session files, {} bytes in {:.1}s -> {}",
                profile.name(),
                seed,
                m.sessions.len(),
                m.total_bytes(),
                started.elapsed().as_secs_f64(),
                out.display()
            );
            println!("{}", j["providers"]);
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("scry-bench: writing {} failed: {e}", out.display());
            ExitCode::from(1)
        }
    }
}
