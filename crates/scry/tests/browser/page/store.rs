//! The page over a team store (`scry web --store`, issue 22) in headless Chromium: the list
//! shows both machines' sessions, each row links to `machine/provider:id` (the reference that
//! picks one machine's copy), and opening a row reads that session from the store.

use super::*;

#[test]
fn browser_store_rows_open_each_machines_session() {
    let Some((chromium, driver)) = browser_tools() else {
        return;
    };
    let Some(s) = crate::team::setup() else {
        return;
    };
    // The same home as a second machine: every session id is held twice.
    let dir = tempfile::tempdir().expect("tempdir");
    let home = crate::team::real_home();
    let beta = crate::team::run(
        &home,
        &dir.path().join("index.db"),
        &[],
        &["push", &s.url, "--machine", "beta", "--reveal"],
    );
    assert_eq!(beta.code, 0, "{}", beta.stderr);
    let empty = tempfile::tempdir().expect("tempdir");
    let server = WebServer::start(
        empty.path(),
        &dir.path().join("web.db"),
        &["--store", &s.url],
    );
    let b = Browser::start(&chromium, &driver, dir.path());
    b.goto(&format!("{}/", server.base));
    b.wait_for(
        "the session list",
        "document.querySelectorAll('.sessions a.row').length",
    );
    let hrefs = b.js(
        "return Array.from(document.querySelectorAll('.sessions a.row')).map(a => a.getAttribute('href'));",
    );
    let hrefs: Vec<String> = serde_json::from_value(hrefs).expect("hrefs");
    assert!(hrefs.iter().any(|h| h.contains("alpha%2F")), "{hrefs:?}");
    assert!(hrefs.iter().any(|h| h.contains("beta%2F")), "{hrefs:?}");
    // A row of beta opens beta's copy (a bare id would be ambiguous here).
    b.js("const a = Array.from(document.querySelectorAll('.sessions a.row')).find(a => a.getAttribute('href').includes('beta%2F')); a.click(); return null;");
    b.wait_for(
        "the stored session's turns",
        "location.hash.includes('beta%2F') && document.querySelectorAll('#turns details.turn').length",
    );
    let shown = b.js("return document.getElementById('main').innerText;");
    assert!(
        !shown.as_str().unwrap_or("").contains("AMBIGUOUS"),
        "{shown}"
    );
}
