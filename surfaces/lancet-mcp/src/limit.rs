//! What one MCP message to lancet must be, answered instead of ignored: one line of at most
//! 16 MiB of UTF-8 JSON.
//!
//! The SDK's stdio transport reads one JSON-RPC message per line and drops, with only a log
//! line, a line over its cap (16 MiB) and a line that is not JSON (nested past serde_json's 128
//! levels, cut short, not UTF-8), so a client that sent one waits forever. [`Bounded`] sits
//! between stdin and the transport and holds each line until its end:
//! - a line that is JSON passes on as it came (blank lines too, which the transport skips);
//! - a line that is not gets a JSON-RPC parse error (-32700, id `null`: its id cannot be read)
//!   saying what is wrong, written to stdout between the SDK's messages (`output.rs`), and the
//!   transport never sees it;
//! - a line past [`MAX_MESSAGE`] is read away while its top-level `"id"` is kept, and the
//!   transport gets a small request in its place: a call of [`OVERSIZED_TOOL`], which the server
//!   answers with an error naming the limit, under the client's id.

use crate::output::Answers;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, ReadBuf};

/// The most bytes one message (one line) to lancet may hold: the SDK's own cap.
pub const MAX_MESSAGE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// The tool name a too-large request is answered under (never listed, never callable by a
/// message small enough to read).
pub const OVERSIZED_TOOL: &str = "lancet/request-too-large";

/// What was wrong with a too-large request.
pub fn too_large(bytes: usize) -> String {
    format!(
        "the request was {bytes} bytes, over the {} MiB ({MAX_MESSAGE} bytes) one MCP message to lancet may hold; nothing was read or written",
        MAX_MESSAGE / (1024 * 1024)
    )
}

/// What to send instead of a too-large request.
pub const SPLIT: &str = "Split the edit into several calls (apply_patch takes one file's operations at a time as well as many), or send whole files with write_file one by one.";

/// Where the scan of a line's JSON stands, enough to find its top-level `"id"` value.
#[derive(Debug, Default)]
struct IdScan {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// At depth 1, where a key may start (after `{` or `,`).
    expecting_key: bool,
    /// The top-level key being read, and the last one read.
    key: Option<Vec<u8>>,
    last_key: Vec<u8>,
    /// Reading the value of the top-level `"id"`.
    in_id: bool,
    id: Vec<u8>,
    found: Option<Vec<u8>>,
}

impl IdScan {
    fn push(&mut self, b: u8) {
        if self.in_id {
            let value_ends = !self.in_string && self.depth == 1 && (b == b',' || b == b'}');
            if !value_ends {
                if self.id.len() < 64 * 1024 {
                    self.id.push(b);
                }
            } else {
                self.in_id = false;
                let id = std::mem::take(&mut self.id);
                let trimmed = id.trim_ascii().to_vec();
                if !trimmed.is_empty() && self.found.is_none() {
                    self.found = Some(trimmed);
                }
            }
        }
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if let Some(key) = self.key.take() {
                    self.last_key = key;
                }
            } else if let Some(key) = self.key.as_mut()
                && key.len() < 8
            {
                key.push(b);
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.expecting_key {
                    self.key = Some(Vec::new());
                    self.expecting_key = false;
                }
            }
            b'{' | b'[' => {
                self.depth += 1;
                if self.depth == 1 {
                    self.expecting_key = true;
                }
            }
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b',' if self.depth == 1 => self.expecting_key = true,
            b':' if self.depth == 1 && self.last_key == b"id" => {
                self.in_id = true;
                self.last_key.clear();
            }
            b':' if self.depth == 1 => self.last_key.clear(),
            _ => {}
        }
    }

    /// The id as JSON, if it is a number or a string (the kinds JSON-RPC allows).
    fn id(&self) -> Option<&[u8]> {
        let id = self.found.as_deref()?;
        let string = id.len() >= 2 && id[0] == b'"' && id[id.len() - 1] == b'"';
        let number = id
            .iter()
            .all(|b| b.is_ascii_digit() || b"-+.eE".contains(b));
        (string || number).then_some(id)
    }
}

/// stdin as the transport should see it: each line whole, once it is known to be JSON; a line
/// that is not answered with a parse error; a line over [`MAX_MESSAGE`] replaced by a call of
/// [`OVERSIZED_TOOL`].
pub struct Bounded<R> {
    inner: R,
    /// The current line, held until its end (empty while one over the limit is read away).
    line: Vec<u8>,
    /// Bytes of the current line seen so far.
    seen: usize,
    /// Lines read so far, to say which one an answer is about.
    lines: usize,
    /// The top-level id of a line over the limit, scanned once it is known to be one.
    scan: IdScan,
    /// Reading away a line over the limit.
    discarding: bool,
    /// Bytes ready for the reader (a whole line, a replacement request), from `given` on.
    pending: Vec<u8>,
    given: usize,
    /// Read from `inner`, not yet looked at, from `start` on.
    buffer: Vec<u8>,
    start: usize,
    /// Where the answers to malformed lines go.
    answers: Answers,
}

impl<R> Bounded<R> {
    /// Bounds `inner`; a malformed line's answer goes to `answers`.
    pub(crate) fn new(inner: R, answers: Answers) -> Self {
        Bounded {
            inner,
            line: Vec::new(),
            seen: 0,
            lines: 0,
            scan: IdScan::default(),
            discarding: false,
            pending: Vec::new(),
            given: 0,
            buffer: Vec::new(),
            start: 0,
            answers,
        }
    }

    /// Moves what can be given on into `out` (up to its room): what is pending, then lines
    /// read from `buffer` as they end.
    fn process(&mut self, out: &mut ReadBuf<'_>) {
        loop {
            if self.given < self.pending.len() {
                let n = (self.pending.len() - self.given).min(out.remaining());
                out.put_slice(&self.pending[self.given..self.given + n]);
                self.given += n;
                if self.given < self.pending.len() {
                    return;
                }
                self.pending.clear();
                self.given = 0;
            }
            if out.remaining() == 0 || self.start >= self.buffer.len() {
                return;
            }
            let rest = &self.buffer[self.start..];
            let newline = rest.iter().position(|&b| b == b'\n');
            let part = &rest[..newline.unwrap_or(rest.len())];
            self.seen += part.len();
            if self.discarding {
                part.iter().for_each(|&b| self.scan.push(b));
            } else {
                self.line.extend_from_slice(part);
                if self.seen > MAX_MESSAGE - 1 {
                    // Over the limit with its newline: read away, its id kept.
                    self.line.iter().for_each(|&b| self.scan.push(b));
                    self.line = Vec::new();
                    self.discarding = true;
                }
            }
            self.start += part.len();
            if newline.is_some() {
                self.start += 1;
                self.end_line();
            }
        }
    }

    /// A line ended: given on, answered, or replaced.
    fn end_line(&mut self) {
        self.lines += 1;
        if self.discarding {
            self.pending = self.replacement();
            self.discarding = false;
        } else {
            let line = std::mem::take(&mut self.line);
            match malformed(&line) {
                None => {
                    self.pending = line;
                    self.pending.push(b'\n');
                }
                Some(why) => self.answers.send(&parse_error(&format!(
                    "line {} of this session is not JSON ({why})",
                    self.lines
                ))),
            }
        }
        self.seen = 0;
        self.scan = IdScan::default();
    }

    /// stdin ended: a line without its newline is answered (the transport would drop it).
    fn end_input(&mut self) {
        let line = std::mem::take(&mut self.line);
        if self.discarding || !line.trim_ascii().is_empty() {
            self.answers.send(&parse_error(&format!(
                "the last line of this session ({} bytes) ended without a newline, so it is not a whole message",
                self.seen
            )));
        }
        self.discarding = false;
        self.seen = 0;
    }

    /// The request standing in for a too-large line (none for a notification, which has no
    /// id to answer).
    fn replacement(&self) -> Vec<u8> {
        let Some(id) = self.scan.id() else {
            return Vec::new();
        };
        let mut line = b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec();
        line.extend_from_slice(id);
        line.extend_from_slice(
            format!(
                ",\"method\":\"tools/call\",\"params\":{{\"name\":\"{OVERSIZED_TOOL}\",\"arguments\":{{\"bytes\":{}}}}}}}\n",
                self.seen
            )
            .as_bytes(),
        );
        line
    }
}

/// Why a line (without its newline) is not a message the transport can read, if it is not:
/// serde_json's own verdict (its nesting limit, UTF-8, where it stopped), after what the
/// transport forgives (a byte order mark, a carriage return). A blank line is no message and
/// no error.
fn malformed(line: &[u8]) -> Option<String> {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.trim_ascii().is_empty() {
        return None;
    }
    serde_json::from_slice::<serde_json::Value>(line)
        .err()
        .map(|e| e.to_string())
}

/// The JSON-RPC parse error (-32700) for a line lancet could not read: id `null`, as JSON-RPC
/// has it when the id cannot be read.
fn parse_error(what: &str) -> serde_json::Value {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": -32700,
            "message": format!(
                "Parse error: {what}; it was ignored and nothing was done. Send each message as one line of UTF-8 JSON ending with a newline, nested at most 128 levels deep, at most {} MiB.",
                MAX_MESSAGE / (1024 * 1024)
            ),
        }
    })
}

impl<R: AsyncRead + Unpin> AsyncRead for Bounded<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        loop {
            let before = out.filled().len();
            this.process(out);
            if out.filled().len() > before {
                return Poll::Ready(Ok(()));
            }
            // Everything read was consumed without output (a line not yet ended, answered or
            // read away): read more.
            this.buffer.clear();
            this.start = 0;
            let mut chunk = [0u8; 64 * 1024];
            let mut read = ReadBuf::new(&mut chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Ready(Ok(())) if read.filled().is_empty() => {
                    this.end_input();
                    return Poll::Ready(Ok(()));
                }
                Poll::Ready(Ok(())) => this.buffer.extend_from_slice(read.filled()),
                Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    fn id_of(line: &str) -> Option<String> {
        let mut scan = IdScan::default();
        for b in line.bytes() {
            scan.push(b);
        }
        scan.push(b'\n');
        scan.id().map(|id| String::from_utf8_lossy(id).into_owned())
    }

    #[test]
    fn the_top_level_id_is_found_wherever_it_stands() {
        assert_eq!(
            id_of(r#"{"jsonrpc":"2.0","id":7,"method":"x"}"#).as_deref(),
            Some("7")
        );
        assert_eq!(
            id_of(r#"{"method":"x","params":{"id":1,"text":"\"id\":9"},"id":"abc"}"#).as_deref(),
            Some("\"abc\"")
        );
        assert_eq!(id_of(r#"{"method":"notify","params":{"id":3}}"#), None);
    }

    /// What the transport reads from `input`, and the answers lancet wrote itself.
    async fn bounded(input: &[u8]) -> (String, Vec<serde_json::Value>) {
        let (sdk, answers, lines) = crate::output::lines();
        let mut bounded = Bounded::new(input, answers);
        let mut out = Vec::new();
        bounded.read_to_end(&mut out).await.unwrap();
        drop(bounded);
        let mut written = Vec::new();
        drop(sdk);
        lines.forward(&mut written).await.unwrap();
        let answers = String::from_utf8(written)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (String::from_utf8(out).unwrap(), answers)
    }

    #[tokio::test(flavor = "current_thread")]
    async fn an_oversized_line_becomes_a_call_of_the_refusal_and_the_rest_passes() {
        let big = "x".repeat(MAX_MESSAGE + 10);
        let input = format!(
            "{{\"id\":1,\"method\":\"a\"}}\n{{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"tools/call\",\"params\":{{\"text\":\"{big}\"}}}}\n{{\"id\":2}}\n"
        );
        let (text, answers) = bounded(input.as_bytes()).await;
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "the cut line never reaches the transport");
        assert_eq!(lines[0], "{\"id\":1,\"method\":\"a\"}");
        assert!(
            lines[1].contains(OVERSIZED_TOOL) && lines[1].contains("\"id\":42"),
            "{}",
            lines[1]
        );
        let bytes: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
        assert!(bytes["params"]["arguments"]["bytes"].as_u64().unwrap() > MAX_MESSAGE as u64);
        assert_eq!(lines[2], "{\"id\":2}");
        assert!(answers.is_empty(), "{answers:?}");
    }

    #[tokio::test(flavor = "current_thread")]
    async fn a_line_that_is_not_json_is_answered_and_never_passed_on() {
        let deep = format!(
            "{{\"id\":5,\"params\":{}{}}}",
            "[".repeat(130),
            "]".repeat(130)
        );
        let mut input = Vec::new();
        input.extend_from_slice(deep.as_bytes());
        input.extend_from_slice(b"\n{\"id\":6,\"method\"\n");
        input.extend_from_slice(b"{\"id\":7,\"x\":\"\xff\"}\n");
        input.extend_from_slice(b"\xEF\xBB\xBF{\"id\":8}\r\n\n{\"id\":9}\n{\"id\":");
        let (text, answers) = bounded(&input).await;
        assert_eq!(
            text, "\u{feff}{\"id\":8}\r\n\n{\"id\":9}\n",
            "what the transport forgives passes as it came"
        );
        let messages: Vec<&str> = answers
            .iter()
            .map(|a| {
                assert_eq!(
                    (a["id"].is_null(), &a["error"]["code"]),
                    (true, &(-32700).into())
                );
                a["error"]["message"].as_str().unwrap()
            })
            .collect();
        assert_eq!(messages.len(), 4, "{messages:#?}");
        for (message, says) in messages.iter().zip([
            "line 1 of this session is not JSON (recursion limit exceeded",
            "line 2 of this session is not JSON (EOF while parsing",
            "line 3 of this session is not JSON (invalid unicode code point",
            "the last line of this session (6 bytes) ended without a newline",
        ]) {
            assert!(message.contains(says), "{says}: {message}");
        }
    }
}
