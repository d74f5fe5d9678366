//! The stdio transport of `scry mcp`: newline-delimited JSON-RPC 2.0 between a byte stream and
//! the `rmcp` service loop, with the protocol's error answers that the SDK's own stdio
//! transport leaves out.
//!
//! Each line is checked before the SDK sees it:
//! - not JSON (or not UTF-8) → `-32700 Parse error` with `"id": null`;
//! - JSON that is not a JSON-RPC 2.0 message (a batch, a bare value, a wrong `jsonrpc`, a
//!   non-string method, an id that is neither a string nor a number, params that are neither
//!   an object nor an array) → `-32600 Invalid Request` (with the request's id when it has a
//!   valid one, else `null`);
//! - a well-formed request whose params the SDK cannot read → `-32602 Invalid params` with its
//!   id (the SDK would answer without an id, leaving the client waiting);
//! - notifications and responses before the session starts (the first request other than
//!   `ping` / `server/discover`, normally `initialize`) are dropped: the SDK would end the
//!   handshake on them. A malformed notification after that is dropped too (a notification is
//!   never answered).
//!
//! Everything else is handed to the SDK unchanged. The server keeps reading after every such
//! line. Lines longer than [`MAX_LINE`] are discarded (answered with `-32600`) without being
//! buffered whole.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, JsonRpcMessage};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::RoleServer;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// The longest line read as one message (the SDK's own stdio limit).
pub const MAX_LINE: usize = 16 * 1024 * 1024;

/// JSON-RPC 2.0: invalid JSON was received.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0: the JSON sent is not a valid Request object.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC 2.0: invalid method parameter(s).
pub const INVALID_PARAMS: i64 = -32602;

/// The requests a client may send that the SDK reads into their own types (MCP 2025-06-18
/// and later); a line naming one of them that the SDK reads as a custom request has bad params.
const STANDARD_REQUESTS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "completion/complete",
    "logging/setLevel",
    "prompts/get",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "resources/directory/read",
    "subscriptions/listen",
    "tools/call",
    "tools/list",
    "tasks/get",
    "tasks/update",
    "tasks/cancel",
    "skills/list",
    "skills/get",
];

/// What to do with one line.
#[derive(Debug)]
pub enum Verdict {
    /// Hand the message to the service.
    Forward(Box<ClientJsonRpcMessage>),
    /// Answer with this error response; the service never sees the line.
    Reply(Value),
    /// Ignore the line.
    Drop,
}

/// Whether the session has started (see the module documentation).
#[derive(Debug, Default)]
pub struct Gate {
    started: bool,
}

impl Gate {
    /// Classifies one line (without its `\n`).
    pub fn classify(&mut self, line: &[u8]) -> Verdict {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return Verdict::Drop;
        }
        let value: Value = match serde_json::from_slice(line) {
            Ok(v) => v,
            Err(e) => {
                return Verdict::Reply(error(
                    Value::Null,
                    PARSE_ERROR,
                    "Parse error",
                    &e.to_string(),
                ))
            }
        };
        let obj = match &value {
            Value::Object(o) => o,
            Value::Array(_) => {
                return Verdict::Reply(invalid(Value::Null, "batch requests are not supported"))
            }
            _ => return Verdict::Reply(invalid(Value::Null, "a message must be a JSON object")),
        };
        let id = obj.get("id");
        let valid_id = matches!(id, Some(Value::String(_) | Value::Number(_)));
        let reply_id = if valid_id {
            id.cloned().unwrap_or(Value::Null)
        } else {
            Value::Null
        };
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Verdict::Reply(invalid(reply_id, "\"jsonrpc\" must be \"2.0\""));
        }
        let request = match obj.get("method") {
            Some(Value::String(_)) => {
                if id.is_some() && !valid_id {
                    return Verdict::Reply(invalid(
                        Value::Null,
                        "\"id\" must be a string or a number",
                    ));
                }
                if !matches!(
                    obj.get("params"),
                    None | Some(Value::Object(_) | Value::Array(_))
                ) {
                    return Verdict::Reply(invalid(
                        reply_id,
                        "\"params\" must be an object or an array",
                    ));
                }
                id.is_some()
            }
            Some(_) => return Verdict::Reply(invalid(reply_id, "\"method\" must be a string")),
            None => {
                let answers = obj.contains_key("result") as u8 + obj.contains_key("error") as u8;
                if !valid_id || answers != 1 {
                    return Verdict::Reply(invalid(
                        reply_id,
                        "neither a request (\"method\") nor a response (\"id\" and \"result\" or \"error\")",
                    ));
                }
                false
            }
        };
        if !request && !self.started {
            // A notification or a response before the session exists: nothing to act on.
            return Verdict::Drop;
        }
        let method = obj
            .get("method")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        match serde_json::from_value::<ClientJsonRpcMessage>(value) {
            // The SDK reads a standard request whose params do not fit as a custom one, and
            // would answer "method not found".
            Ok(JsonRpcMessage::Request(r))
                if matches!(r.request, ClientRequest::CustomRequest(_))
                    && STANDARD_REQUESTS.contains(&method.as_str()) =>
            {
                Verdict::Reply(error(
                    reply_id,
                    INVALID_PARAMS,
                    "Invalid params",
                    &format!("{method}: the params do not have the shape MCP defines"),
                ))
            }
            Ok(msg) => {
                if request && !matches!(method.as_str(), "ping" | "server/discover") {
                    self.started = true;
                }
                Verdict::Forward(Box::new(msg))
            }
            Err(e) if request => Verdict::Reply(error(
                reply_id,
                INVALID_PARAMS,
                "Invalid params",
                &format!("{method}: {e}"),
            )),
            Err(_) => Verdict::Drop,
        }
    }
}

/// A JSON-RPC error response.
fn error(id: Value, code: i64, message: &str, detail: &str) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message, "data": {"detail": detail}},
    })
}

/// An error response as one line, its fields in the specification's order.
fn error_line(answer: &Value) -> Vec<u8> {
    #[derive(serde::Serialize)]
    struct Line<'a> {
        jsonrpc: &'a Value,
        id: &'a Value,
        error: &'a Value,
    }
    let mut bytes = serde_json::to_vec(&Line {
        jsonrpc: &answer["jsonrpc"],
        id: &answer["id"],
        error: &answer["error"],
    })
    .unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// A `-32600 Invalid Request` response.
fn invalid(id: Value, detail: &str) -> Value {
    error(id, INVALID_REQUEST, "Invalid Request", detail)
}

/// The output half, shared by the service's concurrent sends and this transport's own answers.
type Writer<W> = Arc<Mutex<Option<W>>>;

/// A write of one line in flight (kept across cancellations of `receive`).
type Pending = Pin<Box<dyn Future<Output = io::Result<()>> + Send>>;

/// The stdio transport (see the module documentation).
pub struct LineTransport<R, W> {
    read: BufReader<R>,
    line: Vec<u8>,
    discarding: bool,
    gate: Gate,
    write: Writer<W>,
    pending: Option<Pending>,
}

impl<R, W> LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// A transport reading messages from `read` and writing answers to `write`.
    pub fn new(read: R, write: W) -> Self {
        Self {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            gate: Gate::default(),
            write: Arc::new(Mutex::new(Some(write))),
            pending: None,
        }
    }

    /// Reads up to the next `\n` into `self.line`. `Ok(true)`: a whole line (or the last,
    /// unterminated one at end of input); `Ok(false)`: end of input; `Err(())`: the line was
    /// longer than [`MAX_LINE`] and was skipped. Cancel-safe: a partial line stays in
    /// `self.line` for the next call.
    async fn read_line(&mut self) -> io::Result<Result<bool, ()>> {
        loop {
            let (taken, done) = {
                let buf = self.read.fill_buf().await?;
                if buf.is_empty() {
                    let had = !self.line.is_empty() && !self.discarding;
                    self.discarding = false;
                    return Ok(Ok(had));
                }
                let nl = buf.iter().position(|b| *b == b'\n');
                let take = nl.map_or(buf.len(), |i| i + 1);
                let body = nl.map_or(take, |i| i);
                if !self.discarding {
                    if self.line.len() + body > MAX_LINE {
                        // Too long: drop what was kept and skip the rest of the line.
                        self.line.clear();
                        self.discarding = true;
                    } else {
                        self.line.extend_from_slice(&buf[..body]);
                    }
                }
                (take, nl.is_some())
            };
            self.read.consume(taken);
            if done {
                if self.discarding {
                    self.discarding = false;
                    return Ok(Err(()));
                }
                return Ok(Ok(true));
            }
        }
    }

    /// Queues `answer` as the next line written.
    fn queue(&mut self, answer: Value) {
        let bytes = error_line(&answer);
        self.pending = Some(Box::pin(write_line(self.write.clone(), bytes)));
    }

    /// Finishes a queued answer, if any.
    async fn flush_pending(&mut self) -> io::Result<()> {
        if let Some(p) = self.pending.as_mut() {
            let r = p.as_mut().await;
            self.pending = None;
            r?;
        }
        Ok(())
    }
}

/// Writes one whole line under the lock (so lines never interleave).
async fn write_line<W: AsyncWrite + Unpin + Send>(
    write: Writer<W>,
    bytes: Vec<u8>,
) -> io::Result<()> {
    let mut guard = write.lock().await;
    let w = guard
        .as_mut()
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotConnected, "the transport is closed"))?;
    w.write_all(&bytes).await?;
    w.flush().await
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        async move {
            let mut bytes = serde_json::to_vec(&item).map_err(io::Error::other)?;
            bytes.push(b'\n');
            write_line(write, bytes).await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            self.flush_pending().await.ok()?;
            match self.read_line().await {
                Err(e) => {
                    eprintln!("scry mcp: cannot read stdin: {e}");
                    return None;
                }
                Ok(Ok(false)) => return None,
                Ok(Err(())) => {
                    self.queue(invalid(
                        Value::Null,
                        &format!("the message is longer than {MAX_LINE} bytes"),
                    ));
                    continue;
                }
                Ok(Ok(true)) => {}
            }
            let verdict = self.gate.classify(&self.line);
            self.line.clear();
            match verdict {
                Verdict::Forward(msg) => return Some(*msg),
                Verdict::Reply(answer) => self.queue(answer),
                Verdict::Drop => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        let r = self.flush_pending().await;
        let mut guard = self.write.lock().await;
        if let Some(mut w) = guard.take() {
            w.flush().await?;
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(v: &Verdict) -> Option<(i64, Value)> {
        match v {
            Verdict::Reply(r) => Some((r["error"]["code"].as_i64()?, r["id"].clone())),
            _ => None,
        }
    }

    #[test]
    fn parse_errors_and_invalid_requests_are_answered_with_their_codes() {
        let mut g = Gate::default();
        for (line, want, id) in [
            (&b"not json"[..], PARSE_ERROR, Value::Null),
            (b"{\"jsonrpc\":\"2.0\",", PARSE_ERROR, Value::Null),
            (b"\xff\xfe{}", PARSE_ERROR, Value::Null),
            (b"[]", INVALID_REQUEST, Value::Null),
            (
                b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
                INVALID_REQUEST,
                Value::Null,
            ),
            (b"42", INVALID_REQUEST, Value::Null),
            (b"{\"foo\":1}", INVALID_REQUEST, Value::Null),
            (
                b"{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"ping\"}",
                INVALID_REQUEST,
                json!(7),
            ),
            (
                b"{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":1}",
                INVALID_REQUEST,
                json!("a"),
            ),
            (
                b"{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}",
                INVALID_REQUEST,
                Value::Null,
            ),
            (
                b"{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
                INVALID_REQUEST,
                Value::Null,
            ),
            (
                b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\",\"params\":\"x\"}",
                INVALID_REQUEST,
                json!(3),
            ),
            (
                b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":1}",
                INVALID_REQUEST,
                Value::Null,
            ),
            (b"{\"jsonrpc\":\"2.0\",\"id\":4}", INVALID_REQUEST, json!(4)),
            (
                b"{\"jsonrpc\":\"2.0\",\"id\":4,\"result\":{},\"error\":{}}",
                INVALID_REQUEST,
                json!(4),
            ),
        ] {
            let v = g.classify(line);
            assert_eq!(
                code(&v),
                Some((want, id)),
                "{}: {v:?}",
                String::from_utf8_lossy(line)
            );
        }
        assert!(!g.started, "no error line starts the session");
    }

    #[test]
    fn notifications_before_the_session_are_dropped_then_forwarded() {
        let mut g = Gate::default();
        for line in [
            &b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/whatever\"}"[..],
            b"{\"jsonrpc\":\"2.0\",\"method\":\"foo/bar\",\"params\":{}}",
            b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
            b"{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}",
            b"",
            b"  \r",
        ] {
            assert!(matches!(g.classify(line), Verdict::Drop), "{line:?}");
        }
        // ping is allowed before initialize and does not start the session.
        let ping = g.classify(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
        assert!(matches!(ping, Verdict::Forward(_)));
        assert!(!g.started);
        let init = g.classify(
            br#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        );
        assert!(matches!(init, Verdict::Forward(_)), "{init:?}");
        assert!(g.started);
        let n = g.classify(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        assert!(matches!(n, Verdict::Forward(_)), "{n:?}");
    }

    #[test]
    fn a_request_with_unreadable_params_is_answered_with_its_id() {
        let mut g = Gate::default();
        let v = g.classify(
            br#"{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":3}}"#,
        );
        assert_eq!(code(&v), Some((INVALID_PARAMS, json!(5))), "{v:?}");
        assert!(!g.started);
        let v =
            g.classify(br#"{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":3}}"#);
        assert_eq!(code(&v), Some((INVALID_PARAMS, json!("c"))), "{v:?}");
        // An unknown method is the service's to refuse (method not found).
        let v = g.classify(br#"{"jsonrpc":"2.0","id":6,"method":"nope","params":{"a":1}}"#);
        assert!(matches!(v, Verdict::Forward(_)), "{v:?}");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn the_transport_answers_bad_lines_and_keeps_reading() {
        let input = b"garbage\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"}\n\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n".to_vec();
        let (out_w, mut out_r) = tokio::io::duplex(1 << 16);
        let mut t = LineTransport::new(&input[..], out_w);
        let first = t.receive().await.expect("the ping");
        assert!(matches!(first, ClientJsonRpcMessage::Request(_)));
        assert!(t.receive().await.is_none(), "end of input");
        t.close().await.unwrap();
        drop(t);
        let mut out = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut out_r, &mut out)
            .await
            .unwrap();
        let lines: Vec<Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 1, "{out}");
        assert_eq!(lines[0]["error"]["code"], PARSE_ERROR);
        assert_eq!(lines[0]["id"], Value::Null);
    }

    #[tokio::test(flavor = "current_thread")]
    async fn an_overlong_line_is_skipped_without_buffering_it() {
        let mut input = vec![b'x'; MAX_LINE + 10];
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
        let (out_w, mut out_r) = tokio::io::duplex(1 << 16);
        let mut t = LineTransport::new(&input[..], out_w);
        assert!(t.receive().await.is_some());
        assert!(
            t.line.capacity() <= MAX_LINE,
            "the line was never buffered whole"
        );
        t.close().await.unwrap();
        drop(t);
        let mut out = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut out_r, &mut out)
            .await
            .unwrap();
        let v: Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(v["error"]["code"], INVALID_REQUEST);
    }
}
