//! Continue CLI documents and Aider chat histories, damaged: a document nested 100,000 deep,
//! truncated, not an object, with a broken history item; an Aider history with 2,000 launches,
//! invalid UTF-8, an unclosed fence and an unclosed SEARCH block, a 4 MB line, and a FIFO named
//! like a history (discovery must not open it and hang).

use std::path::Path;

use super::{assert_named, nested, uris, Case};

const GOOD_CONTINUE: &str = "0e0c0171-0000-4000-8000-000000000001";

fn continue_doc(id: &str, prompt: &str) -> String {
    serde_json::json!({"sessionId": id, "title": "Untitled Session",
        "workspaceDirectory": "/work/adv",
        "history": [{"message": {"role": "user", "content": prompt}, "contextItems": []},
            {"message": {"role": "assistant", "content": "ok"}, "contextItems": []}]})
    .to_string()
}

#[test]
fn continue_documents_damaged() {
    let c = Case::new();
    let dir = c.home().join(".continue/sessions");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let put = |name: &str, body: &str| std::fs::write(dir.join(name), body).expect("write");
    put(
        &format!("{GOOD_CONTINUE}.json"),
        &continue_doc(GOOD_CONTINUE, "continue healthy prompt"),
    );
    let good = continue_doc("0e0c0171-0000-4000-8000-000000000002", "x");
    put(
        "0e0c0171-0000-4000-8000-000000000002.json",
        &good[..good.len() / 2],
    );
    put("0e0c0171-0000-4000-8000-000000000003.json", "[]");
    put(
        "0e0c0171-0000-4000-8000-000000000004.json",
        &format!(
            "{{\"sessionId\":\"d4\",\"history\":[{},{{\"nope\":1}},5]}}",
            nested(100_000)
        ),
    );
    put("0e0c0171-0000-4000-8000-000000000005.json", "");
    put("sessions.json", "{not json");
    let list = c.check_common();
    assert!(
        uris(&list).contains(&format!("continue:{GOOD_CONTINUE}")),
        "{list}"
    );
    let show = c.scry(&["show", "--json", GOOD_CONTINUE]);
    assert_eq!(show.out.code, 0, "{}", show.out.render());
    let search = c.scry(&["search", "--global", "--json", "continue healthy prompt"]);
    assert!(
        search.out.stdout.contains(GOOD_CONTINUE),
        "{}",
        search.out.render()
    );
    // The truncated document is named by the warning the list carries.
    assert_named(
        &[&list.to_string()],
        "0e0c0171-0000-4000-8000-000000000002.json",
        "truncated Continue document",
    );
}

#[test]
fn aider_histories_damaged() {
    let c = Case::new();
    let proj = c.home().join("work/adv-aider");
    std::fs::create_dir_all(&proj).expect("mkdir");
    let mut body = String::new();
    for i in 0..2_000u32 {
        body.push_str(&format!(
            "\n# aider chat started at 2026-11-{:02} {:02}:{:02}:{:02}\n\n#### launch {i} prompt  \n\nanswer {i}\n",
            1 + i / 86_400 % 28,
            i / 3600 % 24,
            i / 60 % 60,
            i % 60
        ));
    }
    // The last launch: an unclosed fence, an unclosed SEARCH block, a 4 MB line.
    body.push_str("\n# aider chat started at 2026-11-30 23:59:59\n\n#### aider healthy prompt  \n\n```\nnever closed\n#### still a prompt  \n\nnotes.txt\n<<<<<<< SEARCH\nold\n");
    body.push_str(&"y".repeat(4 << 20));
    let mut bytes = body.into_bytes();
    bytes.extend_from_slice(b"\n\xff\xfe broken utf-8\n");
    let file = proj.join(".aider.chat.history.md");
    std::fs::write(&file, &bytes).expect("write");
    // A FIFO named like a history in another project: never opened.
    let fifo_dir = c.home().join("work/fifo");
    std::fs::create_dir_all(&fifo_dir).expect("mkdir");
    let fifo = fifo_dir.join(".aider.chat.history.md");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    c.check_common();
    let all = c.scry(&[
        "list",
        "--global",
        "--provider",
        "aider",
        "--json",
        "--limit",
        "100000",
    ]);
    assert_eq!(all.out.code, 0, "{}", all.out.render());
    let aider: Vec<String> = uris(&all.out.json())
        .into_iter()
        .filter(|u| u.starts_with("aider:"))
        .collect();
    assert_eq!(aider.len(), 2_001, "one session per launch");
    let last = "aider:20261130-235959-adv-aider";
    assert!(aider.iter().any(|u| u == last), "{aider:?}");
    let show = c.scry(&["show", "--json", last]);
    assert_eq!(show.out.code, 0, "{}", show.out.render());
    let v = show.out.json();
    assert_eq!(v["stats"]["events"]["user"], 2, "{}", show.out.render());
    assert_named(
        &[&show.out.stdout],
        ".aider.chat.history.md",
        "invalid UTF-8",
    );
    let search = c.scry(&["search", "--global", "--json", "aider healthy prompt"]);
    assert!(
        search.out.stdout.contains("235959"),
        "{}",
        search.out.render()
    );
    if made {
        assert!(Path::new(&fifo).exists());
    }
}
