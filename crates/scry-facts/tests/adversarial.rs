//! Hostile shell text never panics, aborts or hangs the extractors: deep nesting goes to the
//! fallback tokenizer (the parser recurses per level), huge inputs are bounded, and random
//! strings over the shell's metacharacters are survived.

use std::time::{Duration, Instant};

use scry_facts::shell::{analyze, parse::parse, shell_writes, ssh_host};

fn survive(s: &str) -> Duration {
    let t = Instant::now();
    let _ = shell_writes(s);
    let _ = analyze(s);
    let _ = ssh_host(s);
    t.elapsed()
}

#[test]
fn deep_nesting_falls_back_instead_of_overflowing_the_stack() {
    let cases = [
        "echo ".to_string() + &"$(".repeat(5000) + "x" + &")".repeat(5000),
        "{ ".repeat(5000) + "ls; " + &"}; ".repeat(5000),
        "if true; then ".repeat(3000) + "ls; " + &"fi; ".repeat(3000),
        "(".repeat(20000) + "ls" + &")".repeat(20000),
        "echo $((".to_string() + &"(".repeat(5000) + "1" + &")".repeat(5000) + "))",
        "\"".repeat(100_001),
    ];
    for c in &cases {
        assert!(parse(c).fallback, "{}", &c[..20]);
        assert!(survive(c) < Duration::from_secs(10));
    }
    // Shallow nesting still gets the real parser and finds the write.
    let ok = "{ ".repeat(20) + "ls > a.txt; " + &"}; ".repeat(20);
    assert!(!parse(&ok).fallback);
    assert_eq!(shell_writes(&ok).len(), 1);
}

#[test]
fn long_flat_inputs_are_fine() {
    let pipes = "a | ".repeat(20_000) + "b";
    assert!(survive(&pipes) < Duration::from_secs(10));
    let script = "echo hello > f.txt\n".repeat(10_000);
    let t = Instant::now();
    let w = shell_writes(&script);
    assert_eq!(w.len(), 10_000);
    assert!(t.elapsed() < Duration::from_secs(20));
    // Over the parse bound: the fallback still reads it.
    let big = "echo hello > f.txt\n".repeat(20_000);
    assert!(parse(&big).fallback);
    assert_eq!(shell_writes(&big).len(), 20_000);
}

#[test]
fn random_metacharacter_soup_never_panics() {
    const ALPHA: &[&str] = &[
        "a",
        "b.txt",
        " ",
        "\n",
        "'",
        "\"",
        "\\",
        "$",
        "(",
        ")",
        "{",
        "}",
        "[",
        "]",
        "`",
        "|",
        "&",
        ";",
        "<",
        ">",
        "<<",
        "<<-",
        "EOF",
        ">>",
        "&>",
        "2>&1",
        "#",
        "*",
        "?",
        "~",
        "=",
        "ssh",
        "h:",
        "scp",
        "cp",
        "tee",
        "-a",
        "sed",
        "-i",
        "python",
        "-c",
        "open('x.py','w')",
        "if",
        "then",
        "fi",
        "for",
        "do",
        "done",
        "case",
        "esac",
        "in",
        "\u{0}",
        "é",
        "继续",
        "\t",
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for _ in 0..3000 {
        let len = (next() % 40) as usize;
        let s: String = (0..len)
            .map(|_| ALPHA[(next() % ALPHA.len() as u64) as usize])
            .collect();
        survive(&s);
    }
}
