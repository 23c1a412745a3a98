//! Speaking LSP to one server over stdio: `Content-Length` framing with a size cap, requests
//! with a deadline, the server's own requests answered, positions in UTF-16, file URIs. The
//! server runs contained ([`lancet_process`]): it and everything it started end with the session.

use super::servers::ServerCommand;
use crate::report::{BadMessage, ServerTrouble};
use crate::sandbox::Sandbox;
use lancet_process::Contained;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// The largest message a server may send (a rename's answer is a few KB; a bigger one is a
/// broken or hostile server, refused rather than read into memory).
pub(super) const MAX_MESSAGE: usize = 64 * 1024 * 1024;

/// A running server: its stdin, and the messages its stdout yields.
pub(super) struct Server {
    /// The server and everything it started (tsserver, cargo, a Python interpreter): ended when
    /// the session is dropped.
    _process: Contained,
    input: ChildStdin,
    messages: Receiver<Result<Value, ServerTrouble>>,
    next_id: i64,
    /// What `workspace/configuration` is answered with, by section (rust-analyzer asks for its
    /// options, basedpyright for the Python to run).
    settings: Value,
    /// How long the whole rename may take, for messages.
    allowed: Duration,
    /// The last `quiescent` of rust-analyzer's `experimental/serverStatus`: its workspace is
    /// loaded and nothing is being fetched.
    quiescent: bool,
    pub(super) name: String,
}

impl Server {
    /// Starts `command` in `root`, contained, confined by `sandbox` when given.
    pub(super) fn start(
        command: &ServerCommand,
        root: &std::path::Path,
        settings: Value,
        allowed: Duration,
        sandbox: Option<&mut Sandbox>,
    ) -> Result<Server, lancet_process::ContainError> {
        let mut process = Command::new(&command.program);
        process
            .args(&command.args)
            .envs(command.env.iter().map(|(k, v)| (k, v)))
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = Contained::spawn(process, |process| {
            if let Some(sandbox) = sandbox {
                for (var, dir) in &command.temp_env {
                    process.env(var, sandbox.temp_dir().join(dir));
                }
                sandbox.confine(process);
            }
        })?;
        let input = child
            .take_stdin()
            .ok_or(std::io::Error::from(std::io::ErrorKind::BrokenPipe))?;
        let output = child
            .take_stdout()
            .ok_or(std::io::Error::from(std::io::ErrorKind::BrokenPipe))?;
        let (send, messages) = channel();
        let name = command.name.clone();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(output);
            loop {
                let message = read_message(&mut reader, MAX_MESSAGE)
                    .map_err(|message| ServerTrouble::Unreadable {
                        server: name.clone(),
                        message,
                    })
                    .transpose();
                let Some(message) = message else { break };
                let stop = message.is_err();
                if send.send(message).is_err() || stop {
                    break;
                }
            }
        });
        Ok(Server {
            _process: child,
            input,
            messages,
            next_id: 1,
            settings,
            allowed,
            quiescent: false,
            name: command.name.clone(),
        })
    }

    fn send(&mut self, message: &Value) -> Result<(), ServerTrouble> {
        let body = message.to_string();
        write!(self.input, "Content-Length: {}\r\n\r\n{body}", body.len())
            .and_then(|()| self.input.flush())
            .map_err(|e| ServerTrouble::StoppedReading(e.to_string()))
    }

    pub(super) fn notify(&mut self, method: &str, params: Value) -> Result<(), ServerTrouble> {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
    }

    /// Sends a request and waits for its answer, answering the server's own requests
    /// meanwhile (configuration: the sections lancet sets, else null; the rest: null).
    pub(super) fn request(
        &mut self,
        method: &str,
        params: Value,
        deadline: Instant,
    ) -> Result<Value, ServerTrouble> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        loop {
            let Some(message) = self.next_message(method, deadline)? else {
                continue;
            };
            if message.get("id").and_then(Value::as_i64) != Some(id) {
                continue;
            }
            if let Some(error) = message.get("error") {
                return Err(ServerTrouble::Refused {
                    server: self.name.clone(),
                    method: method.to_string(),
                    message: error["message"].as_str().unwrap_or("an error").to_string(),
                    // ContentModified: the server is still loading the project.
                    loading: error["code"].as_i64() == Some(-32801),
                });
            }
            return Ok(message.get("result").cloned().unwrap_or(Value::Null));
        }
    }

    /// Waits until the server says its workspace is loaded (rust-analyzer's
    /// `experimental/serverStatus` with `quiescent: true`), answering its requests meanwhile.
    pub(super) fn wait_until_quiescent(&mut self, deadline: Instant) -> Result<(), ServerTrouble> {
        while !self.quiescent {
            self.next_message("loading the project", deadline)?;
        }
        Ok(())
    }

    /// The next message: an answer is returned, while the server's own requests are answered
    /// and its notifications noted (rust-analyzer's status) here, giving `None`. `during` names
    /// what is waited for, for messages.
    fn next_message(
        &mut self,
        during: &str,
        deadline: Instant,
    ) -> Result<Option<Value>, ServerTrouble> {
        let left = deadline.saturating_duration_since(Instant::now());
        let message = match self.messages.recv_timeout(left) {
            Ok(m) => m?,
            Err(RecvTimeoutError::Timeout) => {
                return Err(ServerTrouble::Silent {
                    server: self.name.clone(),
                    during: during.to_string(),
                    seconds: self.allowed.as_secs(),
                });
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(ServerTrouble::Exited {
                    server: self.name.clone(),
                    during: during.to_string(),
                });
            }
        };
        let Some(server_method) = message.get("method").and_then(Value::as_str) else {
            return Ok(Some(message));
        };
        if server_method == "experimental/serverStatus" {
            self.quiescent = message["params"]["quiescent"].as_bool() == Some(true);
        }
        if let Some(request_id) = message.get("id") {
            let result = if server_method == "workspace/configuration" {
                let items = message["params"]["items"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                Value::Array(
                    items
                        .iter()
                        .map(|item| {
                            item["section"]
                                .as_str()
                                .and_then(|section| self.settings.get(section))
                                .cloned()
                                .unwrap_or(Value::Null)
                        })
                        .collect(),
                )
            } else {
                Value::Null
            };
            self.send(&json!({"jsonrpc": "2.0", "id": request_id, "result": result}))?;
        }
        Ok(None)
    }

    /// [`Server::request`], asked again every half second while the server says it is still
    /// loading the project (rust-analyzer answers ContentModified, or "waiting for cargo
    /// metadata", until its workspace is loaded).
    pub(super) fn request_when_ready(
        &mut self,
        method: &str,
        params: Value,
        deadline: Instant,
    ) -> Result<Value, ServerTrouble> {
        loop {
            match self.request(method, params.clone(), deadline) {
                Err(ServerTrouble::Refused {
                    loading, message, ..
                }) if (loading || message.contains("waiting for"))
                    && Instant::now() + Duration::from_millis(500) < deadline =>
                {
                    std::thread::sleep(Duration::from_millis(500));
                }
                other => return other,
            }
        }
    }
}

/// One LSP message from a `Content-Length` framed stream: `Ok(None)` at its end, an error for a
/// message over `cap` bytes (not read) or one that is not JSON.
pub(super) fn read_message(
    reader: &mut impl BufRead,
    cap: usize,
) -> Result<Option<Value>, BadMessage> {
    let mut length = None;
    loop {
        let mut header = String::new();
        match reader.read_line(&mut header) {
            Ok(0) | Err(_) => return Ok(None),
            Ok(_) => {}
        }
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some(value) = header.strip_prefix("Content-Length:") {
            length = value.trim().parse::<usize>().ok();
        }
    }
    let Some(length) = length else {
        return Err(BadMessage::Unframed);
    };
    if length > cap {
        return Err(BadMessage::TooLarge {
            bytes: length,
            cap_mib: cap / (1024 * 1024),
        });
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return Ok(None);
    }
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| BadMessage::NotJson(e.to_string()))
}

fn percent_encode(path: &str) -> String {
    let mut out = String::new();
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"/-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

pub(super) fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Some(b) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

pub(super) fn uri_of(path: &std::path::Path) -> String {
    format!("file://{}", percent_encode(&path.to_string_lossy()))
}

/// The UTF-16 column of byte `offset` in `text` (0-based line and column).
pub(super) fn position_of(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count();
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, text[line_start..offset].encode_utf16().count())
}

/// The byte offset of an LSP position (0-based line, UTF-16 column) in `text`.
pub(super) fn offset_of(text: &str, line: usize, column: usize) -> Option<usize> {
    let start = match line {
        0 => 0,
        _ => text.match_indices('\n').nth(line - 1)?.0 + 1,
    };
    let rest = &text[start..];
    let mut units = 0;
    for (i, c) in rest.char_indices() {
        if units >= column {
            return Some(start + i);
        }
        if c == '\n' {
            return (units == column).then_some(start + i);
        }
        units += c.len_utf16();
    }
    (units == column).then_some(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_utf16_both_ways() {
        let text = "a = 1\nb\u{1F600}c = d\n";
        let offset = text.find('c').unwrap();
        assert_eq!(position_of(text, offset), (1, 3));
        assert_eq!(offset_of(text, 1, 3), Some(offset));
        assert_eq!(offset_of(text, 0, 5), Some(5));
        assert_eq!(offset_of(text, 0, 9), None);
        assert_eq!(offset_of(text, 2, 0), Some(text.len()));
        assert_eq!(offset_of(text, 3, 0), None);
    }

    #[test]
    fn uris_round_trip_and_messages_are_framed() {
        let path = "/tmp/a b/c#d.py";
        let uri = uri_of(std::path::Path::new(path));
        assert_eq!(uri, "file:///tmp/a%20b/c%23d.py");
        assert_eq!(percent_decode(uri.strip_prefix("file://").unwrap()), path);
        let mut stream: &[u8] =
            b"Content-Length: 16\r\n\r\n{\"id\":1,\"x\":[2]}Content-Length: 2\r\n\r\n{}";
        let mut reader = BufReader::new(&mut stream);
        let mut next = || read_message(&mut reader, MAX_MESSAGE);
        assert_eq!(next(), Ok(Some(json!({"id": 1, "x": [2]}))));
        assert_eq!(next(), Ok(Some(json!({}))));
        assert_eq!(next(), Ok(None));
    }

    #[test]
    fn a_message_over_the_cap_is_refused_unread() {
        let mut stream: &[u8] = b"Content-Length: 99999999999\r\n\r\n{}";
        let mut reader = BufReader::new(&mut stream);
        let e = read_message(&mut reader, MAX_MESSAGE).unwrap_err();
        assert!(
            matches!(e, BadMessage::TooLarge { cap_mib: 64, .. }),
            "{e:?}"
        );
        let mut stream: &[u8] = b"Content-Length: 5\r\n\r\nnope!";
        let mut reader = BufReader::new(&mut stream);
        assert!(read_message(&mut reader, MAX_MESSAGE).is_err());
    }
}
