//! Prints the parse of `CODEX_DUMP=<path>` (a debugging aid, ignored by default).
use scry_source::Source;

#[test]
#[ignore]
fn dump() {
    let Ok(p) = std::env::var("CODEX_DUMP") else {
        return;
    };
    let src = scry_source_codex::CodexSource;
    let f = src.detect(std::path::Path::new(&p)).expect("detect");
    let s = src.parse(&f).expect("parse");
    let mut h = s.header.clone();
    h.titles.clear();
    println!("{}", serde_json::to_string(&h).unwrap());
    for e in &s.events {
        let t: String = e
            .text
            .chars()
            .take(70)
            .collect::<String>()
            .replace('\n', "⏎");
        println!("{:>3} T{} {:?} {:?} tool={:?} cid={:?} exit={:?} dur={:?} err={:?} usage={:?} data={:?} | {}", e.seq, e.turn, e.kind, e.subtype, e.tool, e.call_id.as_deref().map(|c| &c[c.len().saturating_sub(6)..]), e.exit_code, e.duration_ms, e.is_error, e.usage.map(|u| (u.input,u.output,u.cache_read,u.reasoning)), e.data.as_ref().map(|d| d.to_string().chars().take(60).collect::<String>()), t);
    }
    for w in &s.warnings {
        println!("W {w}");
    }
    println!("total {:?}", s.total_usage());
}

#[test]
#[ignore]
fn dump_raw() {
    let Ok(p) = std::env::var("CODEX_DUMP") else {
        return;
    };
    let src = scry_source_codex::CodexSource;
    let f = scry_source::SourceFile::new(scry_model::ProviderId::Codex, "x", p);
    let s = src.parse(&f).expect("parse");
    for e in &s.events {
        println!("{:?} {:?} {}", e.kind, e.subtype, e.text);
    }
    for w in &s.warnings {
        println!("W {w}");
    }
}
