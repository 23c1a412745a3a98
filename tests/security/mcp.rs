//! A minimal MCP client over stdio (newline-delimited JSON-RPC), to attack `lancet mcp` the way
//! a model connected to it would: only through its tools.

use crate::suite::tree::{GIT_VARIABLES, person_home};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A running `lancet mcp` and the session with it.
pub struct Mcp {
    child: Child,
    /// The server's stdin (gone once closed).
    input: Option<ChildStdin>,
    output: BufReader<ChildStdout>,
    next_id: i64,
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What a tool call answered: its text, whether it is an error, its structured content.
#[derive(Debug)]
pub struct Answer {
    pub text: String,
    pub is_error: bool,
    pub structured: Value,
}

impl Mcp {
    /// Starts `lancet mcp -C root ARGS` (the person's choices) and initialises a session.
    pub fn start(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Mcp {
        let mut mcp = Mcp::spawn(root, args, env);
        mcp.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "attacker", "version": "0"}
            }),
        )
        .expect("initialize");
        mcp.send_line(
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        );
        mcp
    }

    /// Starts `lancet mcp -C root ARGS` without a session: no `initialize` is sent.
    pub fn spawn(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Mcp {
        let mut command = Command::new(env!("CARGO_BIN_EXE_lancet"));
        for name in GIT_VARIABLES {
            command.env_remove(name);
        }
        let mut child = command
            .args(["mcp", "-C", root.to_str().unwrap()])
            .args(args)
            .env("XDG_CONFIG_HOME", person_home().join("config"))
            .env("XDG_DATA_HOME", person_home().join("data"))
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn lancet mcp");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Mcp {
            child,
            input: Some(input),
            output,
            next_id: 1,
        }
    }

    /// Sends a request without waiting for its answer; its id.
    pub fn send(&mut self, method: &str, params: Value) -> Value {
        let id = json!(self.next_id);
        self.next_id += 1;
        self.send_line(
            &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string(),
        );
        id
    }

    /// The next message the server writes.
    pub fn next_message(&mut self) -> Value {
        let mut line = String::new();
        assert!(
            self.output.read_line(&mut line).unwrap() > 0,
            "the server closed its output"
        );
        serde_json::from_str(&line).unwrap()
    }

    /// Sends `signal` (`TERM`, `INT`, `HUP`) to the server.
    pub fn signal(&self, signal: &str) {
        let sent = Command::new("kill")
            .args([format!("-{signal}"), self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success(), "kill -{signal}");
    }

    /// The server's exit status once it has exited, waiting at most `bound` (a liveness bound:
    /// `None` means it did not exit).
    pub fn exit_within(&mut self, bound: std::time::Duration) -> Option<std::process::ExitStatus> {
        let started = std::time::Instant::now();
        while started.elapsed() < bound {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        None
    }

    /// Writes one raw line to the server.
    pub fn send_line(&mut self, line: &str) {
        self.send_bytes(line.as_bytes());
    }

    /// Writes one raw line of any bytes (UTF-8 or not) to the server.
    pub fn send_bytes(&mut self, line: &[u8]) {
        let input = self.input.as_mut().expect("the server's input is open");
        input.write_all(line).unwrap();
        input.write_all(b"\n").unwrap();
        input.flush().unwrap();
    }

    /// Closes the server's stdin, as a client that leaves does.
    pub fn close_input(&mut self) {
        self.input = None;
    }

    /// Reads messages until the answer to `id` (the server's notifications are skipped).
    pub fn answer_to(&mut self, id: &Value) -> Value {
        self.messages_until(id).pop().unwrap()
    }

    /// Every message the server writes up to and including the answer to `id`.
    pub fn messages_until(&mut self, id: &Value) -> Vec<Value> {
        let mut messages = Vec::new();
        loop {
            let mut line = String::new();
            assert!(
                self.output.read_line(&mut line).unwrap() > 0,
                "the server closed its output before answering {id}"
            );
            let message: Value = serde_json::from_str(&line).unwrap();
            let answers = message.get("id") == Some(id);
            messages.push(message);
            if answers {
                return messages;
            }
        }
    }

    /// A request; its result, or its JSON-RPC error.
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        let id = self.send(method, params);
        let message = self.answer_to(&id);
        match message.get("error") {
            Some(e) => Err(e.clone()),
            None => Ok(message["result"].clone()),
        }
    }

    /// Calls a tool with `arguments`.
    pub fn call(&mut self, tool: &str, arguments: Value) -> Answer {
        let result = self
            .request("tools/call", json!({"name": tool, "arguments": arguments}))
            .unwrap_or_else(|e| panic!("{tool}: protocol error {e}"));
        Answer::of(&result)
    }
}

impl Answer {
    /// A `tools/call` result as an answer.
    pub fn of(result: &Value) -> Answer {
        Answer {
            text: result["content"]
                .as_array()
                .map(|c| {
                    c.iter()
                        .filter_map(|b| b["text"].as_str())
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .unwrap_or_default(),
            is_error: result["isError"].as_bool().unwrap_or(false),
            structured: result["structuredContent"].clone(),
        }
    }
}
