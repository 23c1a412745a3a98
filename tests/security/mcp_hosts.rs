//! Issue #42, the MCP server under real hosts, over raw stdio: a cancelled call writes nothing
//! (and one cancelled after its commit point is told in the next answer), progress reaches a
//! client that asked for it, nothing waits behind a test run (ping, tools/list, a read), stop
//! signals end the server after a test call and, during one, roll back and then end it, every
//! refusal carries a report, `read_file` pages, and a request without `initialize` is served
//! as protocol revision 2026-07-28 has it.

use super::mcp::{Answer, Mcp};
use crate::suite::tree::temp_tree;
use serde_json::{Value, json};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long a server may take to exit once told to: a liveness bound, not a speed bar.
const EXIT_BOUND: Duration = Duration::from_secs(30);

const PATCH: &str = "*** Begin Patch\n*** Update File: a.py\n-a = 1\n+a = 2\n*** End Patch\n";

/// A file outside the root the test command touches once it runs, and the command that does,
/// then waits `then`.
fn started_marker(root: &Path, then: &str) -> (PathBuf, String) {
    let marker = root.with_extension("started");
    let command = format!("touch {}; {then}", marker.display());
    (marker, command)
}

/// Waits until `path` exists (the test command runs).
fn wait_for(path: &Path) {
    let started = std::time::Instant::now();
    while !path.exists() {
        assert!(
            started.elapsed() < EXIT_BOUND,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Reads messages until every one of `ids` is answered, in whatever order.
fn answered_all(mcp: &mut Mcp, ids: &[Value]) -> Vec<Value> {
    let mut messages: Vec<Value> = Vec::new();
    while let Some(id) = ids
        .iter()
        .find(|id| !messages.iter().any(|m| m.get("id") == Some(*id)))
    {
        messages.extend(mcp.messages_until(id));
    }
    messages
}

#[test]
fn a_call_cancelled_during_its_tests_writes_nothing() {
    let dir = temp_tree(&[("a.py", b"a = 1\n")]);
    let root = dir.path();
    let (marker, command) = started_marker(root, "sleep 60");
    let mut mcp = Mcp::start(root, &["--test-command", &command, "--no-sandbox"], &[]);
    assert!(!mcp.call("read_file", json!({"path": "a.py"})).is_error);
    let cancelled = mcp.send(
        "tools/call",
        json!({"name": "apply_patch", "arguments": {"text": PATCH, "test": true}}),
    );
    wait_for(&marker);
    assert_eq!(std::fs::read(root.join("a.py")).unwrap(), b"a = 2\n");
    mcp.send_line(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": cancelled, "reason": "the host's timeout"}})
        .to_string(),
    );
    // The next writing call takes its turn once the cancelled batch is over.
    let next = mcp.send(
        "tools/call",
        json!({"name": "write_file", "arguments": {"path": "b.py", "content": "b = 1\n"}}),
    );
    let messages = mcp.messages_until(&next);
    assert!(
        !messages.iter().any(|m| m.get("id") == Some(&cancelled)),
        "a cancelled call is not answered: {messages:#?}"
    );
    assert_eq!(std::fs::read(root.join("a.py")).unwrap(), b"a = 1\n");
    let listed = mcp.call("checkpoints", json!({}));
    let batches = listed.structured["checkpoints"].as_array().unwrap();
    let cancelled_batch = batches
        .iter()
        .find(|b| b["files"][0]["path"] == "a.py")
        .expect("the cancelled batch is in the log");
    assert_eq!(cancelled_batch["undone"], true, "{cancelled_batch}");
    let _ = std::fs::remove_file(&marker);
}

#[test]
fn a_client_that_leaves_during_a_test_run_leaves_nothing_written() {
    let dir = temp_tree(&[("a.py", b"a = 1\n")]);
    let root = dir.path();
    let (marker, command) = started_marker(root, "sleep 60");
    let mut mcp = Mcp::start(root, &["--test-command", &command, "--no-sandbox"], &[]);
    assert!(!mcp.call("read_file", json!({"path": "a.py"})).is_error);
    mcp.send(
        "tools/call",
        json!({"name": "apply_patch", "arguments": {"text": PATCH, "test": true}}),
    );
    wait_for(&marker);
    mcp.close_input();
    let status = mcp.exit_within(EXIT_BOUND).expect("the server ends");
    assert!(status.success(), "{status:?}");
    assert_eq!(std::fs::read(root.join("a.py")).unwrap(), b"a = 1\n");
    let _ = std::fs::remove_file(&marker);
}

#[test]
fn a_call_cancelled_after_its_commit_point_is_told_in_the_next_answer() {
    let dir = temp_tree(&[("a.py", b"a = 1\n")]);
    let mut mcp = Mcp::start(dir.path(), &[], &[]);
    assert!(!mcp.call("read_file", json!({"path": "a.py"})).is_error);
    let edit = mcp.send(
        "tools/call",
        json!({"name": "edit", "arguments": {"path": "a.py", "old_string": "a = 1", "new_string": "a = 2"}}),
    );
    // The answer was on its way when the host gave up on it: the host never reads it.
    let answer = mcp.answer_to(&edit);
    let checkpoint = answer["result"]["structuredContent"]["checkpoint"]
        .as_str()
        .unwrap()
        .to_string();
    mcp.send_line(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": edit}})
        .to_string(),
    );
    let next = mcp.call("read_file", json!({"path": "a.py"}));
    assert!(
        next.text
            .starts_with("Note: your call edit (request 3) was cancelled after its commit point")
            && next.text.contains(&format!("batch {checkpoint}: a.py")),
        "{}",
        next.text
    );
    let notes = next.structured["notes"]
        .as_array()
        .expect("structured notes");
    assert_eq!(notes.len(), 1, "{notes:?}");
    // Told once.
    let again = mcp.call("read_file", json!({"path": "a.py"}));
    assert!(!again.text.contains("Note:"), "{}", again.text);
}

#[test]
fn during_a_test_run_ping_tools_list_and_a_read_are_answered_and_progress_flows() {
    let dir = temp_tree(&[("a.py", b"a = 1\n"), ("other.py", b"o = 1\n")]);
    let root = dir.path();
    let go = root.with_extension("go");
    let (marker, command) = started_marker(
        root,
        &format!("while [ ! -f {} ]; do sleep 0.05; done", go.display()),
    );
    let mut mcp = Mcp::start(root, &["--test-command", &command, "--no-sandbox"], &[]);
    assert!(!mcp.call("read_file", json!({"path": "a.py"})).is_error);
    let patch = mcp.send(
        "tools/call",
        json!({"name": "apply_patch", "arguments": {"text": PATCH, "test": true},
               "_meta": {"progressToken": "patch-1"}}),
    );
    wait_for(&marker);
    let ping = mcp.send("ping", json!({}));
    let list = mcp.send("tools/list", json!({}));
    let read = mcp.send(
        "tools/call",
        json!({"name": "read_file", "arguments": {"path": "a.py"}}),
    );
    let other = mcp.send(
        "tools/call",
        json!({"name": "read_file", "arguments": {"path": "other.py"}}),
    );
    // The tests wait for `go`, written only once these are answered: nothing waits on them.
    // (The two reads run side by side: either may be answered first.)
    let early = answered_all(&mut mcp, &[ping.clone(), list.clone(), read.clone(), other]);
    let answer = |id: &Value| early.iter().find(|m| m.get("id") == Some(id)).unwrap();
    assert_eq!(answer(&ping)["result"], json!({}));
    assert_eq!(
        answer(&list)["result"]["tools"].as_array().unwrap().len(),
        10
    );
    let read = Answer::of(&answer(&read)["result"]);
    assert!(
        read.text
            .starts_with("Note: a batch of this session (apply_patch) is pending its test verdict")
            && read.text.contains("\ta = 2"),
        "{}",
        read.text
    );
    assert_eq!(read.structured["lines"][0]["text"], "a = 2");
    assert!(!early.iter().any(|m| m.get("id") == Some(&patch)));
    std::fs::write(&go, "").unwrap();
    let rest = mcp.messages_until(&patch);
    let progress: Vec<&Value> = early
        .iter()
        .chain(&rest)
        .filter(|m| m["method"] == "notifications/progress")
        .collect();
    assert!(
        progress
            .iter()
            .all(|p| p["params"]["progressToken"] == "patch-1"),
        "{progress:#?}"
    );
    let values: Vec<f64> = progress
        .iter()
        .map(|p| p["params"]["progress"].as_f64().unwrap())
        .collect();
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
    assert!(
        progress.iter().any(|p| p["params"]["message"]
            .as_str()
            .unwrap()
            .starts_with("running `")),
        "{progress:#?}"
    );
    let patched = Answer::of(&rest.last().unwrap()["result"]);
    assert!(!patched.is_error, "{}", patched.text);
    assert_eq!(std::fs::read(root.join("a.py")).unwrap(), b"a = 2\n");
    let _ = std::fs::remove_file(&go);
    let _ = std::fs::remove_file(&marker);
}

#[test]
fn a_quick_edit_sends_no_progress() {
    let dir = temp_tree(&[("a.py", b"a = 1\n")]);
    let mut mcp = Mcp::start(dir.path(), &[], &[]);
    assert!(!mcp.call("read_file", json!({"path": "a.py"})).is_error);
    let edit = mcp.send(
        "tools/call",
        json!({"name": "edit", "arguments": {"path": "a.py", "old_string": "a = 1", "new_string": "a = 2"},
               "_meta": {"progressToken": 7}}),
    );
    let messages = mcp.messages_until(&edit);
    assert_eq!(messages.len(), 1, "{messages:#?}");
}

#[test]
fn stop_signals_end_an_idle_server_after_a_test_run() {
    for (signal, number) in [("TERM", 15), ("INT", 2), ("HUP", 1)] {
        let dir = temp_tree(&[("a.py", b"a = 1\n")]);
        let mut mcp = Mcp::start(dir.path(), &["--test-command", "true", "--no-sandbox"], &[]);
        assert!(!mcp.call("read_file", json!({"path": "a.py"})).is_error);
        let a = mcp.call("apply_patch", json!({"text": PATCH, "test": true}));
        assert!(!a.is_error, "{}", a.text);
        mcp.signal(signal);
        let status = mcp
            .exit_within(EXIT_BOUND)
            .unwrap_or_else(|| panic!("SIG{signal} after a test run left the server running"));
        assert_eq!(status.signal(), Some(number), "SIG{signal}: {status:?}");
    }
}

#[test]
fn a_stop_signal_during_a_test_run_rolls_back_then_ends_the_server() {
    let dir = temp_tree(&[("a.py", b"a = 1\n")]);
    let root = dir.path();
    let (marker, command) = started_marker(root, "sleep 60");
    let mut mcp = Mcp::start(root, &["--test-command", &command, "--no-sandbox"], &[]);
    assert!(!mcp.call("read_file", json!({"path": "a.py"})).is_error);
    let patch = mcp.send(
        "tools/call",
        json!({"name": "apply_patch", "arguments": {"text": PATCH, "test": true}}),
    );
    wait_for(&marker);
    mcp.signal("TERM");
    let answer = Answer::of(&mcp.answer_to(&patch)["result"]);
    assert!(answer.is_error, "{}", answer.text);
    assert_eq!(answer.structured["status"], "test_failed");
    assert_eq!(answer.structured["test"]["interrupted_by"], "SIGTERM");
    assert_eq!(std::fs::read(root.join("a.py")).unwrap(), b"a = 1\n");
    let status = mcp
        .exit_within(EXIT_BOUND)
        .expect("the server ends after answering");
    assert_eq!(status.code(), Some(128 + 15), "{status:?}");
    let _ = std::fs::remove_file(&marker);
}

#[test]
fn every_refusal_carries_a_report_with_its_kind() {
    let dir = temp_tree(&[("a.py", b"a = 1\n"), ("unread.py", b"u = 1\n")]);
    let mut mcp = Mcp::start(dir.path(), &[], &[]);
    let kind = |a: &Answer| {
        a.structured["error"]["kind"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    let cases = [
        ("read_file", json!({"path": "../outside.py"}), "unsafe_path"),
        ("read_file", json!({"path": "absent.py"}), "missing"),
        (
            "edit",
            json!({"path": "../outside.py", "old_string": "x", "new_string": "y"}),
            "unsafe_path",
        ),
        (
            "write_file",
            json!({"path": "unread.py", "content": "u = 2\n"}),
            "unread",
        ),
        (
            "apply_patch",
            json!({"text": "*** Begin Patch\n*** Delete File: unread.py\n*** End Patch\n"}),
            "unread",
        ),
        ("apply_patch", json!({"text": PATCH, "test": true}), "usage"),
        (
            "rename_symbol",
            json!({"old": "", "new": "b", "at": "a.py:1:1", "lsp": true}),
            "usage",
        ),
        (
            "edit_lines",
            json!({"path": "a.py", "edits": [{"op": "move", "start": "1:abc"}]}),
            "usage",
        ),
        (
            "apply_patch",
            json!({"text": PATCH, "format": "zip"}),
            "usage",
        ),
    ];
    for (tool, arguments, expected) in cases {
        let a = mcp.call(tool, arguments.clone());
        assert!(a.is_error, "{tool} {arguments}: {}", a.text);
        assert_eq!(kind(&a), expected, "{tool} {arguments}: {}", a.structured);
        assert!(a.structured["status"].is_string(), "{}", a.structured);
    }
    assert_eq!(
        std::fs::read(dir.path().join("unread.py")).unwrap(),
        b"u = 1\n"
    );
}

#[test]
fn read_file_pages_a_long_file() {
    let text: String = (1..=2500).map(|i| format!("line {i}\n")).collect();
    let dir = temp_tree(&[("long.txt", text.as_bytes())]);
    let mut mcp = Mcp::start(dir.path(), &[], &[]);
    let first = mcp.call("read_file", json!({"path": "long.txt"}));
    assert!(!first.is_error, "{}", first.text);
    assert_eq!(first.structured["lines"].as_array().unwrap().len(), 2000);
    assert_eq!(first.structured["next_offset"], 2001);
    assert_eq!(first.structured["total_lines"], 2500);
    assert!(
        first
            .text
            .contains("500 more line(s) after line 2000: read on with offset 2001"),
        "{}",
        &first.text[first.text.len() - 300..]
    );
    let rest = mcp.call("read_file", json!({"path": "long.txt", "offset": 2001}));
    let lines = rest.structured["lines"].as_array().unwrap();
    assert_eq!((lines.len(), &lines[0]["text"]), (500, &json!("line 2001")));
    assert!(rest.structured.get("next_offset").is_none());
    // The whole file counts as read: it may be overwritten.
    let a = mcp.call(
        "write_file",
        json!({"path": "long.txt", "content": "short\n"}),
    );
    assert!(!a.is_error, "{}", a.text);
}

#[test]
fn a_request_without_initialize_is_served_as_2026_07_28_has_it() {
    let dir = temp_tree(&[("a.py", b"a = 1\n")]);
    let mut mcp = Mcp::spawn(dir.path(), &[], &[]);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "stateless", "version": "0"},
    });
    // Each request carries the client's context in `_meta`; one without it is told what lacks.
    let bare = mcp.send("tools/list", json!({}));
    let refused = mcp.answer_to(&bare);
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("io.modelcontextprotocol/protocolVersion"),
        "{refused}"
    );
    let listed = mcp.request("tools/list", json!({"_meta": meta})).unwrap();
    assert_eq!(listed["tools"].as_array().unwrap().len(), 10, "{listed}");
    let read = mcp
        .request(
            "tools/call",
            json!({"name": "read_file", "arguments": {"path": "a.py"}, "_meta": meta}),
        )
        .unwrap();
    assert_eq!(read["resultType"], "complete", "{read}");
    assert_eq!(read["structuredContent"]["lines"][0]["text"], "a = 1");
    // The connection is the session: what was read may be edited.
    let edited = mcp
        .request(
            "tools/call",
            json!({"name": "edit", "arguments": {"path": "a.py", "old_string": "a = 1", "new_string": "a = 2"},
                   "_meta": meta}),
        )
        .unwrap();
    assert_eq!(edited["isError"], false, "{edited}");
    assert_eq!(std::fs::read(dir.path().join("a.py")).unwrap(), b"a = 2\n");
}
