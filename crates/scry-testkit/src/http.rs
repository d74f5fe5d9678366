//! A raw HTTP/1.1 client for the server tests: one request per connection (`Connection: close`),
//! read until the server closes. Raw on purpose: the tests send foreign `Host` headers and odd
//! methods and must see exactly what the server answered (no redirects, retries or
//! normalization a client library would add).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use serde_json::Value;

/// One HTTP response.
#[derive(Debug, Default)]
pub struct Resp {
    /// The status code (0 when no status line came back).
    pub status: u16,
    /// The status line and headers as received.
    pub head: String,
    /// The headers, names and values trimmed.
    pub headers: Vec<(String, String)>,
    /// The body, lossily decoded.
    pub body: String,
}

impl Resp {
    /// Splits a raw response into head, headers and body.
    pub fn parse(raw: &[u8]) -> Resp {
        let text = String::from_utf8_lossy(raw).into_owned();
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let mut lines = head.lines();
        let status = lines
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
            .collect();
        Resp {
            status,
            head: head.to_string(),
            headers,
            body: body.to_string(),
        }
    }

    /// The body as JSON (panics, naming status and body, when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {} {}", self.status, self.body))
    }

    /// The error code of a JSON error body (`error.code`).
    pub fn code(&self) -> String {
        self.json()["error"]["code"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// The first header named `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// `method path` on a fresh connection to `addr` (`127.0.0.1:PORT`) with `Host: addr` unless
/// `headers` names another, and `Content-Length: 0` for methods other than GET / HEAD; reads
/// until the server closes or `timeout` passes (a read timeout ends the response there).
pub fn request(
    addr: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    timeout: Duration,
) -> std::io::Result<Resp> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(timeout)).ok();
    let mut req = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        req.push_str(&format!("Host: {addr}\r\n"));
    }
    req.push_str("Connection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if method != "GET" && method != "HEAD" {
        req.push_str("Content-Length: 0\r\n");
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes())?;
    let mut raw = Vec::new();
    if let Err(e) = s.read_to_end(&mut raw) {
        if raw.is_empty() {
            return Err(e);
        }
    }
    Ok(Resp::parse(&raw))
}

/// `GET path` (see [`request`]) that never fails: a response with status 0 when nothing usable
/// came back (no connection, nothing sent, no status line).
pub fn get(addr: &str, path: &str, timeout: Duration) -> Resp {
    request(addr, "GET", path, &[], timeout).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// A server that answers one connection with `answer` and hands back the request it read.
    fn one_shot(answer: &'static str) -> (String, std::thread::JoinHandle<String>) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap().to_string();
        let h = std::thread::spawn(move || {
            let (mut s, _) = l.accept().unwrap();
            let mut got = Vec::new();
            let mut buf = [0u8; 1024];
            while !got.ends_with(b"\r\n\r\n") {
                let n = s.read(&mut buf).unwrap();
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
            }
            s.write_all(answer.as_bytes()).unwrap();
            String::from_utf8(got).unwrap()
        });
        (addr, h)
    }

    #[test]
    fn a_request_names_its_host_and_reads_the_answer() {
        let (addr, h) =
            one_shot("HTTP/1.1 404 Not Found\r\nX-A: 1\r\n\r\n{\"error\":{\"code\":\"nope\"}}");
        let r = request(
            &addr,
            "POST",
            "/v1/x",
            &[("Origin", "o")],
            Duration::from_secs(20),
        )
        .unwrap();
        let sent = h.join().unwrap();
        assert!(sent.starts_with("POST /v1/x HTTP/1.1\r\n"), "{sent}");
        assert!(sent.contains(&format!("Host: {addr}\r\n")), "{sent}");
        assert!(
            sent.contains("Origin: o\r\nContent-Length: 0\r\n"),
            "{sent}"
        );
        assert_eq!(
            (r.status, r.header("x-a"), r.code().as_str()),
            (404, Some("1"), "nope")
        );
    }

    #[test]
    fn a_foreign_host_replaces_ours() {
        let (addr, h) = one_shot("HTTP/1.1 200 OK\r\n\r\n");
        let r = request(
            &addr,
            "GET",
            "/",
            &[("Host", "evil.example")],
            Duration::from_secs(20),
        )
        .unwrap();
        let sent = h.join().unwrap();
        assert!(
            sent.contains("Host: evil.example\r\n") && !sent.contains(&addr),
            "{sent}"
        );
        assert_eq!(r.status, 200);
    }

    #[test]
    fn nothing_there_is_status_zero() {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap().to_string();
        drop(l);
        assert_eq!(get(&addr, "/", Duration::from_secs(1)).status, 0);
    }
}
