//! The size limit of one MCP message, answered instead of ignored.
//!
//! The SDK's stdio transport reads one JSON-RPC message per line and drops a line over its cap
//! (16 MiB) with only a log line, so a client that sent one waits forever. [`Bounded`] sits
//! between stdin and the transport: it passes lines through, counts each one, and when a line
//! passes [`MAX_MESSAGE`] it ends what it passed with a newline (a cut line the transport
//! ignores as unparsable), reads the rest of the line away while keeping its top-level `"id"`,
//! and then hands the transport a small request in its place: a call of [`OVERSIZED_TOOL`],
//! which the server answers with an error naming the limit, under the client's id.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncRead, ReadBuf};

/// The most bytes one message (one line) to lancet may hold: the SDK's own cap.
pub const MAX_MESSAGE: usize = rmcp::transport::async_rw::DEFAULT_MAX_LINE_LENGTH;

/// The tool name a too-large request is answered under (never listed, never callable by a
/// message small enough to read).
pub const OVERSIZED_TOOL: &str = "lancet/request-too-large";

/// The error a too-large request gets.
pub fn refusal(bytes: usize) -> String {
    format!(
        "The request was {bytes} bytes, over the {} MiB ({MAX_MESSAGE} bytes) one MCP message to lancet may hold; nothing was read or written. Split the edit into several calls (apply_patch takes one file's operations at a time as well as many), or send whole files with write_file one by one.",
        MAX_MESSAGE / (1024 * 1024)
    )
}

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

/// stdin, with every line over [`MAX_MESSAGE`] replaced by a call of [`OVERSIZED_TOOL`].
pub struct Bounded<R> {
    inner: R,
    /// Bytes of the current line seen so far.
    line: usize,
    scan: IdScan,
    /// Reading away a line over the limit.
    discarding: bool,
    /// Bytes ready for the reader (a line's end, a replacement request).
    pending: Vec<u8>,
    /// Read from `inner`, not yet given on.
    buffer: Vec<u8>,
    start: usize,
}

impl<R> Bounded<R> {
    /// Bounds `inner`.
    pub fn new(inner: R) -> Self {
        Bounded {
            inner,
            line: 0,
            scan: IdScan::default(),
            discarding: false,
            pending: Vec::new(),
            buffer: Vec::new(),
            start: 0,
        }
    }

    /// Moves what can be given on from `buffer` into `out` (up to its room).
    fn process(&mut self, out: &mut ReadBuf<'_>) {
        while self.start < self.buffer.len() && out.remaining() > 0 && self.pending.is_empty() {
            let b = self.buffer[self.start];
            self.start += 1;
            if b == b'\n' {
                if self.discarding {
                    self.pending = self.replacement();
                    self.discarding = false;
                } else {
                    out.put_slice(b"\n");
                }
                self.line = 0;
                self.scan = IdScan::default();
                continue;
            }
            self.line += 1;
            self.scan.push(b);
            if self.discarding {
                continue;
            }
            if self.line > MAX_MESSAGE - 1 {
                // End what was passed on: the transport drops the cut line as unparsable.
                self.discarding = true;
                out.put_slice(b"\n");
                continue;
            }
            out.put_slice(&[b]);
        }
        if !self.pending.is_empty() && out.remaining() > 0 {
            let n = self.pending.len().min(out.remaining());
            out.put_slice(&self.pending[..n]);
            self.pending.drain(..n);
        }
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
                self.line
            )
            .as_bytes(),
        );
        line
    }
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
            // Everything read was consumed without output (a line being read away): read more.
            this.buffer.clear();
            this.start = 0;
            let mut chunk = [0u8; 64 * 1024];
            let mut read = ReadBuf::new(&mut chunk);
            match Pin::new(&mut this.inner).poll_read(cx, &mut read) {
                Poll::Ready(Ok(())) if read.filled().is_empty() => return Poll::Ready(Ok(())),
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

    #[tokio::test(flavor = "current_thread")]
    async fn an_oversized_line_becomes_a_call_of_the_refusal_and_the_rest_passes() {
        let big = "x".repeat(MAX_MESSAGE + 10);
        let input = format!(
            "{{\"id\":1,\"method\":\"a\"}}\n{{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"tools/call\",\"params\":{{\"text\":\"{big}\"}}}}\n{{\"id\":2}}\n"
        );
        let mut bounded = Bounded::new(input.as_bytes());
        let mut out = Vec::new();
        bounded.read_to_end(&mut out).await.unwrap();
        let text = String::from_utf8(out).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "{\"id\":1,\"method\":\"a\"}");
        assert!(
            lines[1].len() < MAX_MESSAGE,
            "the cut line stays under the transport's cap"
        );
        assert!(
            lines[2].contains(OVERSIZED_TOOL) && lines[2].contains("\"id\":42"),
            "{}",
            lines[2]
        );
        let bytes: serde_json::Value = serde_json::from_str(lines[2]).unwrap();
        assert!(bytes["params"]["arguments"]["bytes"].as_u64().unwrap() > MAX_MESSAGE as u64);
        assert_eq!(lines[3], "{\"id\":2}");
    }
}
